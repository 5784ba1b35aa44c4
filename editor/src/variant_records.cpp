#include "variant_records.h"

namespace kiln::cli {

runtime::VariantRecord variant_record(const shadercache::CompiledVariant& variant) {
  runtime::VariantRecord record;
  for (const auto& stage : variant.stages)
    record.stages.push_back({stage.stage, stage.file, stage.spirv, stage.reflection, stage.backend_source});
  return record;
}

}  // namespace kiln::cli
