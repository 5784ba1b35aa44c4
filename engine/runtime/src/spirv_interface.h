#pragma once
// What one stage's SPIR-V itself declares of its interface with a pipeline layout: its descriptor
// bindings (kind, array size, block size), its push-constant blocks and its input locations, read
// from the module's types, variables and decorations with no other library. The reflection stored
// beside the SPIR-V is checked against this before any layout made from it reaches a driver.
//
// Kinds and sizes follow the rules the cook's reflection (SPIRV-Cross) uses: a descriptor array's
// count is the product of its dimensions (a runtime-sized one counts 1); a block's size is its
// highest member offset plus that member's declared size (array stride times length, matrix
// stride times columns, or rows when row-major); a device-address pointer is 8 bytes and never
// followed, so recursive buffer references end.
//
// Thread-safety: a pure function.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/reflection.h"

namespace kiln::runtime {

struct SpirvBinding {
  std::uint32_t set = 0, binding = 0;
  DescriptorKind kind = DescriptorKind::kUniformBuffer;
  std::uint32_t count = 1;
  bool count_known = true;                  // false: an array sized by a specialization constant
  std::optional<std::uint64_t> block_size;  // uniform and storage buffers
};

struct SpirvInterface {
  std::vector<SpirvBinding> bindings;              // in declaration order
  std::vector<std::uint64_t> push_constant_sizes;  // one per push-constant block
  // Stage inputs that are not built-ins, sorted: location and type as the reflection names it
  // ("vec3", "uvec4", "mat4"; "other" for what it has no name for; arrays by their element).
  std::vector<std::pair<std::uint32_t, std::string>> inputs;
};

// The interface `words` declares; an error saying what is malformed (the caller names the stage).
Result<SpirvInterface> read_spirv_interface(std::span<const std::uint32_t> words);

}  // namespace kiln::runtime
