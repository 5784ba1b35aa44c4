#include "kiln/textures/tx_store.h"

#include <tiffio.h>

#include <fstream>
#include <iterator>
#include <string>

#include "kiln/textures/tx_writer.h"

namespace kiln::textures {
namespace {

// Bump when the .tx the writer makes changes: older conversions are then another build, pruned.
constexpr const char* kConverterVersion = "kiln-tx-writer 2";

std::string libtiff_version() {
  const std::string text = TIFFGetVersion();
  return text.substr(0, text.find('\n'));
}

}  // namespace

Result<cache::BlobNamespace> open_tx_namespace(cache::BlobStore& store, TxKeying keying) {
  return store.open_namespace("textures", {{"converter", kConverterVersion}, {"libtiff", libtiff_version()}},
                              {{"key", keying == TxKeying::kContent ? "source-content" : "source-file-identity"}});
}

Result<std::vector<std::byte>> convert_to_tx_bytes(const std::filesystem::path& source,
                                                   const std::filesystem::path& temp_file) {
  const std::filesystem::path* temp = &temp_file;
  const Status converted = convert_to_tx(source, *temp);
  std::vector<std::byte> bytes;
  if (converted) {
    std::ifstream in(*temp, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const auto* p = reinterpret_cast<const std::byte*>(text.data());
    bytes.assign(p, p + text.size());
  }
  std::error_code ec;
  std::filesystem::remove(*temp, ec);
  if (!converted) return converted.error();
  if (bytes.empty()) return make_error(temp->string() + ": the conversion cannot be read back");
  return bytes;
}

}  // namespace kiln::textures
