#include "kiln/textures/tx_store.h"

#include <string>

#include "kiln/core/input_limits.h"
#include "kiln/textures/tx_writer.h"
#include "libtiff_version.h"
#include "tiff_errors.h"

namespace kiln::textures {
namespace {

// Bump when the .tx the writer makes changes: older conversions are then another build, pruned.
constexpr const char* kConverterVersion = "kiln-tx-writer 3";

// Converted files depend on the libtiff that wrote them. Its version is remembered in the kind's
// directory beside the namespaces it names (prune keeps the file), so that a cook whose textures
// are all kept need not load libtiff to name them.
Result<std::string> libtiff_version(const cache::BlobStore& store) {
  return textures::libtiff_version(store.root() / "textures" / kLibtiffVersionMemo);
}

}  // namespace

Result<cache::BlobNamespace> open_tx_namespace(cache::BlobStore& store, TxKeying keying) {
  auto libtiff = libtiff_version(store);
  if (!libtiff) return libtiff.error();
  return store.open_namespace("textures", {{"converter", kConverterVersion}, {"libtiff", *libtiff}},
                              {{"key", keying == TxKeying::kContent ? "source-content" : "source-file-identity"}},
                              /*local=*/keying == TxKeying::kFileIdentity);  // an inode means nothing elsewhere
}

Result<cache::BlobNamespace> open_encoding_namespace(cache::BlobStore& store, const std::string& encoders) {
  auto libtiff = libtiff_version(store);
  if (!libtiff) return libtiff.error();
  return store.open_namespace("textures", {{"converter", kConverterVersion}, {"libtiff", *libtiff}},
                              {{"key", "tx-content-encoded"}, {"encoders", encoders}});
}

Result<std::vector<std::byte>> convert_to_tx_bytes(const std::filesystem::path& source,
                                                   const std::filesystem::path& temp_file,
                                                   const TextureSettings& settings) {
  const Status converted = convert_to_tx(source, temp_file, {.settings = settings});
  Result<std::string> text = converted ? read_input_file(temp_file, limits::kDecodedImageBytes, "conversion")
                                       : Result<std::string>(converted.error());
  std::error_code ec;
  std::filesystem::remove(temp_file, ec);
  if (!text) return text.error();
  const auto* p = reinterpret_cast<const std::byte*>(text->data());
  return std::vector<std::byte>(p, p + text->size());
}

}  // namespace kiln::textures
