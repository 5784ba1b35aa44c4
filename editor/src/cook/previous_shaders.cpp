#include "cook/previous_shaders.h"

#include "cook/cooked_manifest.h"

#include <algorithm>
#include <string_view>

#include "kiln/core/atomic_output.h"
#include "kiln/core/input_limits.h"
#include "kiln/runtime/manifest.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

// The first line of the record: what it is and the build that made its pack.
std::string record_header() { return std::string("kiln-shaders-entries 1 ") + KILN_SHADERS_PACK_BUILD_ID; }

// The record's second line: the pack it describes, by file and header checksum.
std::string pack_line(const std::string& file, const runtime::PackFile& pack) {
  return file + " " + cache::hex64(pack.checksum());
}

// The line at `at` in `text` (without its newline), moving `at` past it; nullopt at the end.
std::optional<std::string_view> next_line(std::string_view text, std::size_t& at) {
  if (at >= text.size()) return std::nullopt;
  const std::size_t end = std::min(text.find('\n', at), text.size());
  const std::string_view line = text.substr(at, end - at);
  at = end + 1;
  return line;
}

}  // namespace

std::unique_ptr<PreviousShaders> PreviousShaders::open(const fs::path& out, const runtime::ShadersIdentity& identity) {
  // The record of a 100,000-variant set is about 10 MiB; anything far larger is not one.
  auto text = read_input_file(out / kShadersEntriesFile, std::uint64_t{256} << 20, "shaders entries");
  if (!text) return nullptr;
  const std::string_view record = *text;
  std::size_t at = 0;
  const auto header = next_line(record, at);
  const auto recorded_pack = next_line(record, at);
  if (!header || *header != record_header() || !recorded_pack) return nullptr;
  // "<pack file> <its header checksum>": the pack the manifest names, still the one recorded, cooked
  // for this identity.
  const auto named = cooked_shaders_pack(out);
  if (!named) return nullptr;
  auto pack = runtime::PackFile::open(out / named->file, runtime::PackKind::kShaders);
  if (!pack || *recorded_pack != pack_line(named->file, **pack)) return nullptr;
  if ((*pack)->identity() != runtime::encode_shaders_identity(identity)) return nullptr;
  std::unique_ptr<PreviousShaders> previous(new PreviousShaders());
  previous->pack_ = std::move(*pack);
  // "<content key> <variant id>"
  while (const auto line = next_line(record, at)) {
    const std::size_t space = line->find(' ');
    if (space == std::string_view::npos) return nullptr;
    previous->keys_.emplace(std::string(line->substr(space + 1)), std::string(line->substr(0, space)));
  }
  return previous;
}

std::optional<std::vector<std::byte>> PreviousShaders::find(const std::string& target, const std::string& name,
                                                            const cache::BlobKey& key) const {
  const std::string id = runtime::variant_id(target, name);
  const auto it = keys_.find(id);
  if (it == keys_.end() || it->second != key.hex()) return std::nullopt;
  auto payload = pack_->read(runtime::entry_name(runtime::EntryKind::kVariant, id));
  if (!payload || !*payload) return std::nullopt;
  return std::move(**payload);
}

Status record_shaders_entries(const fs::path& out, const runtime::ManifestPack& written_pack,
                              const std::vector<TargetVariants>& targets) {
  const fs::path path = out / kShadersEntriesFile;
  auto pack = runtime::PackFile::open(out / written_pack.file, runtime::PackKind::kShaders);
  if (!pack) return pack.error();
  std::string text = record_header() + "\n" + pack_line(written_pack.file, **pack) + "\n";
  for (const auto& target : targets)
    for (std::size_t i = 0; i < target.results.size(); ++i) {
      const VariantResult& r = target.results[i];
      if (!r.ok || !r.warnings.empty() || i >= target.content_keys.size() || !target.content_keys[i]) continue;
      text +=
          target.content_keys[i]->hex() + " " + runtime::variant_id(target.target.id(), r.planned->key.name()) + "\n";
    }
  return write_file_atomically(path, std::as_bytes(std::span(text)), 0644, Durability::kRenamedOnly);
}

}  // namespace kiln::cook
