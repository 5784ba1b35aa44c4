#include "cook/texture_conversions.h"

#include <fstream>
#include <iterator>

#include "kiln/cache/hash.h"
#include "kiln/textures/tx_writer.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kPrefix = "cook-v2-";

std::vector<std::byte> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const auto* p = reinterpret_cast<const std::byte*>(bytes.data());
  return {p, p + bytes.size()};
}

}  // namespace

TextureConversions::TextureConversions(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    // cook-v2-<32 hex>-<16 hex>.tx
    if (name.size() == kPrefix.size() + 32 + 1 + 16 + 3 && name.rfind(kPrefix, 0) == 0 && name.ends_with(".tx"))
      cached_[name.substr(kPrefix.size(), 32)].push_back(e.path());
  }
}

Result<TextureConversions::Tx> TextureConversions::get(const fs::path& source) {
  const std::vector<std::byte> source_bytes = read_bytes(source);
  const std::string source_hash = cache::xxh3_128(std::span(source_bytes)).hex();
  std::error_code ec;
  for (const fs::path& file : cached_[source_hash]) {
    Tx tx{read_bytes(file), false};
    const std::string name = file.filename().string();
    if (name.substr(kPrefix.size() + 33, 16) == cache::hex64(cache::xxh3_64(std::span(tx.bytes)))) return tx;
    fs::remove(file, ec);  // torn or not what its name says
    ++discarded_;
  }
  cached_.erase(source_hash);
  fs::create_directories(dir_, ec);
  const fs::path made = dir_ / (std::string(kPrefix) + source_hash + ".tx");
  if (auto converted = textures::convert_to_tx(source, made); !converted)
    return make_error(source.string() + ": cannot convert to .tx: " + converted.error().message);
  Tx tx{read_bytes(made), true};
  const fs::path named = dir_ / (std::string(kPrefix) + source_hash + "-" + cache::hex64(cache::xxh3_64(std::span(tx.bytes))) + ".tx");
  fs::rename(made, named, ec);
  if (!ec) cached_[source_hash].push_back(named);
  return tx;
}

}  // namespace kiln::cook
