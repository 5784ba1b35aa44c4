#include "kiln/runtime/shader_stage.h"

#include <array>

namespace kiln::runtime {
namespace {

struct StageRow {
  ShaderStage stage;
  std::string_view name;
  PipelineKind kind;
};

constexpr std::array<StageRow, kShaderStageCount> kStages = {{
#define KILN_SHADER_STAGE_ROW(name, text, kind) {ShaderStage::k##name, text, PipelineKind::kind},
    KILN_SHADER_STAGES(KILN_SHADER_STAGE_ROW)
#undef KILN_SHADER_STAGE_ROW
}};

}  // namespace

std::string_view stage_name(ShaderStage stage) { return kStages[static_cast<std::size_t>(stage)].name; }

std::optional<ShaderStage> stage_named(std::string_view name) {
  for (const StageRow& row : kStages)
    if (row.name == name) return row.stage;
  return std::nullopt;
}

std::string_view source_language_name(SourceLanguage language) {
  switch (language) {
    case SourceLanguage::kGlsl: return "glsl";
    case SourceLanguage::kHlsl: return "hlsl";
  }
  return "glsl";
}

std::optional<StageSource> stage_source_from_path(const std::filesystem::path& file) {
  const std::filesystem::path name = file.filename();
  const bool hlsl = name.extension() == ".hlsl";
  const std::string ext = (hlsl ? name.stem() : name).extension().string();
  if (ext.size() < 2) return std::nullopt;
  const auto stage = stage_named(std::string_view(ext).substr(1));
  if (!stage) return std::nullopt;
  return StageSource{*stage, hlsl ? SourceLanguage::kHlsl : SourceLanguage::kGlsl};
}

std::optional<ShaderStage> stage_from_path(const std::filesystem::path& file) {
  const auto source = stage_source_from_path(file);
  return source ? std::optional(source->stage) : std::nullopt;
}

std::filesystem::path shader_of_stage_file(const std::filesystem::path& file) {
  const auto source = stage_source_from_path(file);
  if (!source) return file;
  std::filesystem::path out = file;
  if (source->language == SourceLanguage::kHlsl) out.replace_extension();
  return out.replace_extension();
}

PipelineKind pipeline_kind(ShaderStage stage) { return kStages[static_cast<std::size_t>(stage)].kind; }

std::string_view pipeline_kind_name(PipelineKind kind) {
  switch (kind) {
    case PipelineKind::kGraphics: return "graphics";
    case PipelineKind::kMesh: return "mesh";
    case PipelineKind::kCompute: return "compute";
    case PipelineKind::kRayTracing: return "ray tracing";
  }
  return "graphics";
}

std::string stage_extensions() {
  std::string out = "{";
  for (const StageRow& row : kStages) out += (out.size() > 1 ? ",." : ".") + std::string(row.name);
  return out + "}";
}

}  // namespace kiln::runtime
