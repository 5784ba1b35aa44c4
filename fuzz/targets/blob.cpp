// Shader cache blob files: the header (magic, version, key, lengths, checksums) and the payload
// checksum, checked against the key the file name gives, as every read checks them.
#include <cstring>

#include "fuzz_target.h"
#include "kiln/cache/blob_store.h"

KILN_FUZZ_TARGET(blob) {
  // The first 37 bytes are the file name ("<32 hex>.blob"), the rest the file.
  if (data.size() < 37) return;
  const std::string name(reinterpret_cast<const char*>(data.data()), 37);
  const auto key = kiln::cache::blob_key_from_file_name(name);
  if (!key) return;
  KILN_FUZZ_CHECK(key->hex() + ".blob" == name);
  const auto file = data.subspan(37);
  const auto problem = kiln::cache::check_blob_file(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(file.data()), file.size()), *key);
  if (problem)
    KILN_FUZZ_CHECK(!problem->empty());
  else
    KILN_FUZZ_CHECK(file.size() >= 64);
}
