// Material JSON: parse_material.
#include "fuzz_target.h"
#include "kiln/materials/material.h"

KILN_FUZZ_TARGET(material_json) {
  auto m = kiln::materials::parse_material("fuzz.json", kiln::fuzz::as_text(data));
  if (!m) {
    KILN_FUZZ_CHECK_ERROR(m.error(), "fuzz.json");
    return;
  }
  KILN_FUZZ_CHECK(!m->shader.empty());
  for (const auto& [slot, texture] : m->textures) KILN_FUZZ_CHECK(!texture.empty() && texture.front() != '/');
}
