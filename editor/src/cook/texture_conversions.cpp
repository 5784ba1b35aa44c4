#include "cook/texture_conversions.h"

#include <unistd.h>

#include <fstream>
#include <iterator>

#include "kiln/cache/hash.h"
#include "kiln/textures/texture_path.h"
#include "kiln/textures/tx_file.h"
#include "kiln/textures/tx_writer.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kPrefix = "cook-v2-";

// The whole file; empty when it cannot be read (callers check what they read against a hash or
// a TIFF decode, so a short read never passes).
std::vector<std::byte> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  if (in.bad()) return {};
  const auto* p = reinterpret_cast<const std::byte*>(bytes.data());
  return {p, p + bytes.size()};
}

}  // namespace

TextureConversions::TextureConversions(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // cook-v2-<32 hex>-<16 hex>.tx
    if (name.size() == kPrefix.size() + 32 + 1 + 16 + 3 && name.rfind(kPrefix, 0) == 0 && name.ends_with(".tx"))
      cached_[name.substr(kPrefix.size(), 32)].push_back(it->path());
  }
}

// Every tile of every level decodes: a truncated or damaged .tx fails here, not in the game.
static Status check_tx(const std::string& name, std::span<const std::byte> bytes) {
  auto tx = textures::TxFile::open_memory(name, bytes);
  if (!tx) return tx.error();
  const auto& levels = (*tx)->info().levels;
  for (std::size_t l = 0; l < levels.size(); ++l)
    for (std::uint32_t y = 0; y < levels[l].tiles_y(); ++y)
      for (std::uint32_t x = 0; x < levels[l].tiles_x(); ++x)
        if (auto tile = (*tx)->read_tile_rgba8(l, x, y); !tile) return tile.error();
  return {};
}

Result<TextureConversions::Tx> TextureConversions::get(const fs::path& source, bool verify) {
  if (const auto resolved = textures::resolve_texture_path(source); resolved.tiled) {
    Tx tx{read_bytes(resolved.file), false, resolved.file};
    if (auto ok = check_tx(resolved.file.string(), tx.bytes); !ok)
      return make_error(ok.error().message + " (the .tx beside " + source.filename().string() +
                        ": fix or delete it, or touch the source to convert that instead)");
    return tx;
  }
  const std::vector<std::byte> source_bytes = read_bytes(source);
  const std::string source_hash = cache::xxh3_128(std::span(source_bytes)).hex();
  std::error_code ec;
  for (const fs::path& file : cached_[source_hash]) {
    Tx tx{read_bytes(file), false};
    const std::string name = file.filename().string();
    if (name.substr(kPrefix.size() + 33, 16) == cache::hex64(cache::xxh3_64(std::span(tx.bytes)))) {
      if (verify) {
        const fs::path fresh = dir_ / (".verify." + name);
        auto converted = textures::convert_to_tx(source, fresh);
        const bool same = converted && read_bytes(fresh) == tx.bytes;
        fs::remove(fresh, ec);
        if (!same) return make_error("cook: --verify: " + source.string() + ": the cached conversion differs from a fresh one");
      }
      return tx;
    }
    fs::remove(file, ec);  // torn or not what its name says
    ++discarded_;
  }
  cached_.erase(source_hash);
  fs::create_directories(dir_, ec);
  // A name of this process's own: cooks sharing the cache never read each other's half-made file.
  const fs::path made = dir_ / (".cooking." + std::to_string(::getpid()) + "." + source_hash + ".tx");
  if (auto converted = textures::convert_to_tx(source, made); !converted)
    return make_error(source.string() + ": cannot convert to .tx: " + converted.error().message);
  Tx tx{read_bytes(made), true};
  if (auto ok = check_tx(made.string(), tx.bytes); !ok) {
    fs::remove(made, ec);
    return make_error(source.string() + ": the conversion does not read back: " + ok.error().message);
  }
  const fs::path named = dir_ / (std::string(kPrefix) + source_hash + "-" + cache::hex64(cache::xxh3_64(std::span(tx.bytes))) + ".tx");
  fs::rename(made, named, ec);
  if (!ec) cached_[source_hash].push_back(named);
  return tx;
}

}  // namespace kiln::cook
