#pragma once
// A material as the shaders pack stores it, ready for a renderer: for every pass of its shader, the
// variant to bind, each parameter block's bytes laid out at the offsets the variant's reflection
// gives (std140 for uniform buffers, std430 for push constants: copy them into the buffer as they
// are), and the binding of every texture. The authored parameter values and texture slots are kept
// too, for tools.
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::runtime {

inline constexpr std::uint32_t kMaterialRecordVersion = 1;

struct ParameterBlock {
  enum class Kind : std::uint32_t { kUniformBuffer = 0, kPushConstant = 1 };
  std::string name;  // the block's type name in the shader ("Material")
  Kind kind = Kind::kUniformBuffer;
  std::uint32_t set = 0, binding = 0;  // uniform buffers only
  std::vector<std::byte> bytes;        // the block's declared size; members no parameter sets are zero
};

struct TextureBinding {
  std::string slot;     // the sampler's name in the shader
  std::string texture;  // a project file: its entry in the textures pack
  std::uint32_t set = 0, binding = 0;
};

struct MaterialPass {
  std::string pass;
  std::string variant;  // the variant's name (VariantKey::name()): its entry in the shaders pack
  std::vector<ParameterBlock> blocks;
  std::vector<TextureBinding> textures;
};

struct MaterialRecord {
  std::string file;  // the material asset, relative to the project root
  std::string shader;
  std::vector<std::string> keywords;                  // canonical order
  std::map<std::string, std::vector<double>> params;  // as authored
  std::map<std::string, std::string> textures;        // slot -> texture file, as authored
  std::vector<MaterialPass> passes;                   // in the order the shader declares them

  const MaterialPass* pass(std::string_view name) const;  // nullptr when the shader has no such pass
};

std::vector<std::byte> encode_material_record(const MaterialRecord& record);
// Checks the layout and every count and value against the entry's size; errors start with `where`.
Result<MaterialRecord> decode_material_record(std::span<const std::byte> bytes, const std::string& where);

}  // namespace kiln::runtime
