// The records inside packs, as a hand-made pack with valid checksums would hold them: variant
// and material records, the manifest (signed or not) and the pack identities; and the public key
// files a trust policy reads.
#include "fuzz_target.h"
#include "kiln/runtime/manifest.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/pack_contents.h"
#include "kiln/runtime/variant_record.h"
#include "kiln/trust/public_key.h"

KILN_FUZZ_TARGET(pack_records) {
  if (data.empty()) return;
  const auto rest = data.subspan(1);
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(rest.data()), rest.size());
  switch (data[0] % 6) {
    case 0:
      if (auto v = kiln::runtime::decode_variant_record(bytes, "variant:fuzz"); !v)
        KILN_FUZZ_CHECK_ERROR(v.error(), "variant:fuzz");
      break;
    case 1:
      if (auto m = kiln::runtime::decode_material_record(bytes, "material:fuzz"); !m)
        KILN_FUZZ_CHECK_ERROR(m.error(), "material:fuzz");
      break;
    case 2: {
      auto m = kiln::runtime::decode_manifest(kiln::fuzz::as_text(rest), "fuzz/manifest.json");
      if (!m) {
        KILN_FUZZ_CHECK_ERROR(m.error(), "fuzz/manifest.json");
        break;
      }
      // What decodes encodes to text that decodes to the same manifest; a signature, whatever its
      // bytes, reaches Ed25519 verification (against a fixed key) without harm.
      const std::string encoded = kiln::runtime::encode_manifest(*m);
      auto again = kiln::runtime::decode_manifest(encoded, "re-encoded");
      KILN_FUZZ_CHECK(again && kiln::runtime::encode_manifest(*again) == encoded);
      if (m->signature) {
        kiln::trust::PublicKey key;
        for (std::size_t i = 0; i < key.raw.size(); ++i) key.raw[i] = std::uint8_t(i * 13 + 1);
        const std::string text = kiln::runtime::manifest_signed_text(*m);
        (void)kiln::trust::verify_signature(key, std::as_bytes(std::span(text)), m->signature->value);
      }
      break;
    }
    case 3: (void)kiln::runtime::decode_shaders_identity(kiln::fuzz::as_text(rest)); break;
    case 4: (void)kiln::runtime::decode_scripts_identity(kiln::fuzz::as_text(rest)); break;
    case 5:  // a trusted key file (player.trusted_keys)
      if (auto key = kiln::trust::parse_public_key(kiln::fuzz::as_text(rest), "fuzz/key.pub"); !key)
        KILN_FUZZ_CHECK_ERROR(key.error(), "fuzz/key.pub");
      break;
  }
}
