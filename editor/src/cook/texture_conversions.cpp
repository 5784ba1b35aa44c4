#include "cook/texture_conversions.h"

#include <unistd.h>

#include <atomic>

#include "kiln/cache/hash.h"
#include "kiln/core/input_limits.h"
#include "kiln/textures/texture_path.h"
#include "kiln/textures/tx_file.h"
#include "kiln/textures/tx_store.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

// A texture file whole (a source or an artist's .tx): a regular file within the image limit.
Result<std::vector<std::byte>> read_bytes(const fs::path& file) {
  auto text = read_input_file(file, limits::kDecodedImageBytes, "texture");
  if (!text) return text.error();
  const auto* p = reinterpret_cast<const std::byte*>(text->data());
  return std::vector<std::byte>(p, p + text->size());
}

// Every tile of every level decodes: a truncated or damaged .tx fails here, not in the game.
Status check_tx(const std::string& name, std::span<const std::byte> bytes) {
  auto tx = textures::TxFile::open_memory(name, bytes);
  if (!tx) return tx.error();
  const auto& levels = (*tx)->info().levels;
  for (std::size_t l = 0; l < levels.size(); ++l)
    for (std::uint32_t y = 0; y < levels[l].tiles_y(); ++y)
      for (std::uint32_t x = 0; x < levels[l].tiles_x(); ++x) KILN_TRY((*tx)->read_tile_rgba8(l, x, y));
  return {};
}

// A reader's message names the file it read; after "<source>: cannot convert" that is said twice.
std::string without_name(const std::string& message, const fs::path& source) {
  const std::string prefix = source.string() + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

}  // namespace

TextureConversions::TextureConversions(cache::BlobStore* store) : store_(store) {
  if (!store_) return;
  if (auto ns = textures::open_tx_namespace(*store_, textures::TxKeying::kContent)) ns_ = std::move(*ns);
}

Result<TextureConversions::Tx> TextureConversions::get(const fs::path& source,
                                                       const textures::TextureSettings& settings, bool verify) {
  if (const auto resolved = textures::resolve_texture_path(source); resolved.tiled) {
    auto bytes = read_bytes(resolved.file);
    if (!bytes) return bytes.error();
    Tx tx{std::move(*bytes), false, resolved.file, cache::Hash128{}};
    tx.made_from = cache::Xxh3Stream().update(std::span<const std::byte>(tx.bytes)).digest128();
    if (auto ok = check_tx(resolved.file.string(), tx.bytes); !ok)
      return make_error(ok.error().message + " (the .tx beside " + source.filename().string() +
                        ": fix or delete it, or touch the source to convert that instead)");
    return tx;
  }
  const auto source_bytes = read_bytes(source);
  if (!source_bytes) return source_bytes.error();
  cache::Xxh3Stream content;
  content.update("settings:").update(textures::describe_settings(settings)).update("\nsource:");
  content.update(std::string_view(reinterpret_cast<const char*>(source_bytes->data()), source_bytes->size()));
  const cache::BlobKey key{content.digest128()};
  const cache::Hash128 made_from = cache::Xxh3Stream().update(std::span<const std::byte>(*source_bytes)).digest128();
  std::optional<std::vector<std::byte>> cached;
  if (ns_) {
    bool corrupt = false;
    cached = store_->get(*ns_, key, &corrupt);
    discarded_ += corrupt;
  }
  if (cached && !verify) return Tx{std::move(*cached), false, {}, made_from};

  static std::atomic<std::uint64_t> made{0};
  Result<fs::path> temp =
      ns_ ? store_->temp_path(*ns_, "tx")
          : Result<fs::path>(fs::temp_directory_path() / (".kiln-tx." + std::to_string(::getpid()) + "." +
                                                          std::to_string(made.fetch_add(1)) + ".tx"));
  if (!temp) return make_error(source.string() + ": " + temp.error().message);
  auto bytes = textures::convert_to_tx_bytes(source, *temp, settings);
  if (!bytes)
    return make_error(source.string() + ": cannot convert to .tx: " + without_name(bytes.error().message, source));
  if (auto ok = check_tx(source.string() + " (converted)", *bytes); !ok)
    return make_error(source.string() + ": the conversion does not read back: " + ok.error().message);
  if (cached && *cached == *bytes) return Tx{std::move(*cached), false, {}, made_from};
  // A fresh conversion, or one that replaces a cached conversion which differs from it.
  if (ns_) store_->put(*ns_, key, *bytes);
  if (cached)
    return make_error("cook: --verify: " + source.string() +
                      ": the cached conversion differs from a fresh one (replaced)");
  return Tx{std::move(*bytes), true, {}, made_from};
}

}  // namespace kiln::cook
