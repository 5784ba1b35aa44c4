// The records inside packs, as a hand-made pack with valid checksums would hold them: variant
// and material records, the manifest and the pack identities.
#include "fuzz_target.h"
#include "kiln/runtime/manifest.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/pack_contents.h"
#include "kiln/runtime/variant_record.h"

KILN_FUZZ_TARGET(pack_records) {
  if (data.empty()) return;
  const auto rest = data.subspan(1);
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(rest.data()), rest.size());
  switch (data[0] % 5) {
    case 0:
      if (auto v = kiln::runtime::decode_variant_record(bytes, "variant:fuzz"); !v)
        KILN_FUZZ_CHECK_ERROR(v.error(), "variant:fuzz");
      break;
    case 1:
      if (auto m = kiln::runtime::decode_material_record(bytes, "material:fuzz"); !m)
        KILN_FUZZ_CHECK_ERROR(m.error(), "material:fuzz");
      break;
    case 2:
      if (auto m = kiln::runtime::decode_manifest(kiln::fuzz::as_text(rest), "fuzz/manifest.json"); !m)
        KILN_FUZZ_CHECK_ERROR(m.error(), "fuzz/manifest.json");
      break;
    case 3: (void)kiln::runtime::decode_shaders_identity(kiln::fuzz::as_text(rest)); break;
    case 4: (void)kiln::runtime::decode_scripts_identity(kiln::fuzz::as_text(rest)); break;
  }
}
