// Whole pack files: Pack::open checks the header, the index and the names; every entry found is
// then read (its payload checksum checked).
#include "fuzz_target.h"
#include "kiln/runtime/pack.h"

KILN_FUZZ_TARGET(pack_bytes) {
  if (data.empty()) return;
  const kiln::fuzz::MemoryFile file(data.subspan(1));
  const auto kind = static_cast<kiln::runtime::PackKind>(1 + data[0] % 3);
  auto pack = kiln::runtime::Pack::open(file.path(), kind);
  if (!pack) {
    KILN_FUZZ_CHECK_ERROR(pack.error(), file.path().string());
    return;
  }
  for (const std::string& name : (*pack)->names()) {
    auto payload = (*pack)->find(name);
    if (!payload)
      KILN_FUZZ_CHECK_ERROR(payload.error(), file.path().string());
    else
      KILN_FUZZ_CHECK(payload->has_value());
  }
}
