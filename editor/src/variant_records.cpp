#include "variant_records.h"

namespace kiln::cli {

runtime::VariantRecord variant_record(const shadercache::CompiledVariant& variant) {
  runtime::VariantRecord record;
  for (const auto& stage : variant.stages)
    record.stages.push_back({stage.stage, stage.file, stage.spirv, stage.reflection, stage.backend_source});
  return record;
}

std::vector<std::byte> encode_variant_record(const shadercache::CompiledVariant& variant) {
  std::vector<runtime::StoredStage> stages;
  stages.reserve(variant.stages.size());
  for (const auto& s : variant.stages)
    stages.push_back({s.stage, s.file, s.spirv, s.reflection_text, s.backend_source});
  return runtime::encode_variant_record(stages);
}

}  // namespace kiln::cli
