// `#pragma kiln` declarations of a shader stage: parse_shader_declaration.
#include "fuzz_target.h"
#include "kiln/materials/shader_declaration.h"

KILN_FUZZ_TARGET(shader_pragmas) {
  auto d = kiln::materials::parse_shader_declaration("fuzz.frag", kiln::fuzz::as_text(data));
  if (!d) {
    KILN_FUZZ_CHECK_ERROR(d.error(), "fuzz.frag");
    return;
  }
  for (const auto& k : d->keywords) KILN_FUZZ_CHECK(!k.empty());
  for (const auto& p : d->passes) KILN_FUZZ_CHECK(!p.empty());
}
