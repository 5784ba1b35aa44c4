#include "kiln/textures/texture_path.h"

#include "kiln/core/input_limits.h"

namespace kiln::textures {
namespace fs = std::filesystem;

TexturePath resolve_texture_path(const fs::path& source) {
  if (source.extension() == ".tx") return {source, true};
  std::error_code ec;
  const auto source_time = fs::last_write_time(source, ec);
  const bool source_exists = !ec;
  fs::path replaced = source;
  replaced.replace_extension(".tx");
  fs::path appended = source;
  appended += ".tx";
  for (const fs::path& candidate : {replaced, appended}) {
    std::error_code e;
    const auto tx_time = fs::last_write_time(candidate, e);
    if (e || !input_present(candidate)) continue;  // a FIFO or directory there is refused by name
    if (!source_exists || tx_time >= source_time) return {candidate, true};
  }
  return {source, false};
}

}  // namespace kiln::textures
