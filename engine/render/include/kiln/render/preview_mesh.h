#pragma once
// The mesh a material is shown on: a UV sphere carrying every attribute the sample shaders read
// (position, normal, uv, tangent, joints, weights, colour), and the vertex stream of each shader
// input, found by what its name says.
//
// Thread-safety: plain values and pure functions.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kiln/runtime/shader_interface.h"

namespace kiln::render {

struct PreviewMesh {
  std::uint32_t vertices = 0;
  std::vector<std::uint32_t> indices;
  std::vector<float> position, normal, uv, tangent, weights, color;  // 3, 3, 2, 4, 4, 4 per vertex
  std::vector<std::uint32_t> joints;                                 // 4 per vertex (all joint 0)
};

// Radius 1, centred on the origin; `rings` from pole to pole, `segments` around.
PreviewMesh uv_sphere(std::uint32_t rings = 32, std::uint32_t segments = 48);

// The bytes of `input`'s stream (its type's size per vertex): the attribute its name names
// ("position", "normal", "uv"/"texcoord", "tangent", "joint", "weight", "color"/"colour"), its
// components converted to the input's type; zeros for a name it does not know.
std::vector<std::byte> vertex_stream(const PreviewMesh& mesh, const runtime::VertexInput& input);

}  // namespace kiln::render
