#pragma once
// Valid shaders that SPIRV-Cross could not take, shared by the module tests and the command tests.

namespace kiln::test {

// A list of nodes through device addresses; `Item` is laid out twice (std140 in the uniform
// block, std430 in the node), which is what made SPIRV-Cross compare the two round the cycle.
inline constexpr const char* kLinkedListFrag = R"(#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference) buffer Node;
struct Item { Node next; vec4 value; };
layout(buffer_reference, std430) buffer Node { Item item; };
layout(set = 0, binding = 0) uniform Root { Node head; Item first; } root;
layout(location = 0) out vec4 color;
void main() {
  Node n = root.head;
  vec4 sum = root.first.value;
  for (int i = 0; i < 4; ++i) { sum += n.item.value; n = n.item.next; }
  color = sum;
}
)";

// A compute shader on cooperative matrices: an extension this SPIRV-Cross does not know.
inline constexpr const char* kCooperativeMatrixComp = R"(#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { float16_t a[]; };
layout(set = 0, binding = 1) buffer C { float16_t c[]; };
void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> m;
  coopMatLoadNV(m, a, 0, 16, false);
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> r = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(0.0);
  r = coopMatMulAddNV(m, m, r);
  coopMatStoreNV(r, c, 0, 16, false);
}
)";

}  // namespace kiln::test
