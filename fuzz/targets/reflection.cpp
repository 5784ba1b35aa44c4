// The reflection a variant record carries, decoded and read into a shader interface as a renderer
// reads it: the first byte picks the stages (vert + frag with the same reflection, or comp alone),
// the rest is the stored reflection JSON.
#include "../../engine/runtime/src/reflection_document.h"
#include "fuzz_target.h"
#include "kiln/runtime/reflection.h"
#include "kiln/runtime/shader_interface.h"

KILN_FUZZ_TARGET(reflection) {
  if (data.empty()) return;
  const std::string json(kiln::fuzz::as_text(data.subspan(1)));
  auto reflection = kiln::runtime::decode_reflection(json, "fuzz.pack: variant");
  // Read flat where it can, the text gives what the full reader gives: the value or the message.
  const auto whole = kiln::runtime::decode_reflection_document(json, "fuzz.pack: variant");
  KILN_FUZZ_CHECK(reflection.ok() == whole.ok());
  KILN_FUZZ_CHECK(reflection ? *reflection == *whole : reflection.error().message == whole.error().message);
  if (!reflection) {
    KILN_FUZZ_CHECK_ERROR(reflection.error(), "fuzz.pack: variant");
    return;
  }
  // What decodes encodes back to the same reflection.
  auto again = kiln::runtime::decode_reflection(kiln::runtime::encode_reflection(*reflection), "again");
  KILN_FUZZ_CHECK(again && *again == *reflection);
  kiln::runtime::VariantRecord variant;
  const std::vector<std::uint32_t> spirv = {0x07230203u};
  if (data[0] % 2 == 0) {
    variant.stages.push_back({"vert", "shaders/fuzz.vert", spirv, *reflection, ""});
    variant.stages.push_back({"frag", "shaders/fuzz.frag", spirv, *reflection, ""});
  } else {
    variant.stages.push_back({"comp", "shaders/fuzz.comp", spirv, *reflection, ""});
  }
  auto interface = kiln::runtime::shader_interface(variant, "fuzz.pack: variant");
  if (!interface) {
    KILN_FUZZ_CHECK_ERROR(interface.error(), "fuzz.pack: variant");
    return;
  }
  for (const auto& b : interface->bindings) KILN_FUZZ_CHECK(b.set < interface->set_count && b.count > 0);
  KILN_FUZZ_CHECK(interface->push_constant_size % 4 == 0);
}
