#pragma once
// The one table of shader stages: each stage's name, which is also its source file's extension
// (`lit.frag`, `trace.rgen`; `lit.frag.hlsl` for HLSL) and its name in packs, and the kind of
// pipeline it belongs to. The
// compiler's language, the Vulkan stage bit and the project scan all come from here; code that maps
// a stage to something else switches over ShaderStage, so the build stops where a new stage is not
// handled (-Werror=switch).
//
// Thread-safety: constants and pure functions.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::runtime {

enum class PipelineKind : std::uint8_t { kGraphics, kMesh, kCompute, kRayTracing };

// X(Name, name and extension, pipeline kind); the order is the order of a variant's stages.
#define KILN_SHADER_STAGES(X)          \
  X(Vertex, "vert", kGraphics)         \
  X(TessControl, "tesc", kGraphics)    \
  X(TessEval, "tese", kGraphics)       \
  X(Geometry, "geom", kGraphics)       \
  X(Task, "task", kMesh)               \
  X(Mesh, "mesh", kMesh)               \
  X(Fragment, "frag", kGraphics)       \
  X(Compute, "comp", kCompute)         \
  X(RayGen, "rgen", kRayTracing)       \
  X(Intersection, "rint", kRayTracing) \
  X(AnyHit, "rahit", kRayTracing)      \
  X(ClosestHit, "rchit", kRayTracing)  \
  X(Miss, "rmiss", kRayTracing)        \
  X(Callable, "rcall", kRayTracing)

enum class ShaderStage : std::uint8_t {
#define KILN_SHADER_STAGE_ENUMERATOR(name, text, kind) k##name,
  KILN_SHADER_STAGES(KILN_SHADER_STAGE_ENUMERATOR)
#undef KILN_SHADER_STAGE_ENUMERATOR
};

inline constexpr std::size_t kShaderStageCount = 0
#define KILN_SHADER_STAGE_COUNT(name, text, kind) +1
    KILN_SHADER_STAGES(KILN_SHADER_STAGE_COUNT)
#undef KILN_SHADER_STAGE_COUNT
    ;

using StageMask = std::uint32_t;  // one bit per ShaderStage
constexpr StageMask stage_bit(ShaderStage stage) { return StageMask{1} << static_cast<unsigned>(stage); }

std::string_view stage_name(ShaderStage stage);                 // "vert", "rchit", ...
std::optional<ShaderStage> stage_named(std::string_view name);  // nullopt: not a stage
// The languages a stage's source may be written in: GLSL (`lit.frag`) or HLSL (`lit.frag.hlsl`).
enum class SourceLanguage : std::uint8_t { kGlsl, kHlsl };
std::string_view source_language_name(SourceLanguage language);  // "glsl", "hlsl"

struct StageSource {
  ShaderStage stage;
  SourceLanguage language;
};
// `lit.frag` -> frag in GLSL, `lit.frag.hlsl` -> frag in HLSL; nullopt: not a stage file.
std::optional<StageSource> stage_source_from_path(const std::filesystem::path& file);
std::optional<ShaderStage> stage_from_path(const std::filesystem::path& file);  // the stage of either
// The shader a stage file belongs to: "shaders/lit.frag.hlsl" -> "shaders/lit"; other paths as given.
std::filesystem::path shader_of_stage_file(const std::filesystem::path& file);
PipelineKind pipeline_kind(ShaderStage stage);
// The fragment stage ends a graphics and a mesh pipeline alike; this is the kind it starts.
std::string_view pipeline_kind_name(PipelineKind kind);  // "graphics", "mesh", "compute", "ray tracing"
// Every extension, for messages: "{.vert,.tesc,...}" (each also with .hlsl after it).
std::string stage_extensions();

}  // namespace kiln::runtime
