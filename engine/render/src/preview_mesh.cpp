#include "kiln/render/preview_mesh.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>

namespace kiln::render {

PreviewMesh uv_sphere(std::uint32_t rings, std::uint32_t segments) {
  PreviewMesh m;
  for (std::uint32_t r = 0; r <= rings; ++r) {
    const float v = float(r) / float(rings), theta = v * std::numbers::pi_v<float>;
    for (std::uint32_t s = 0; s <= segments; ++s) {
      // u = 0 and u = 1 meet at the back (-z), away from the camera: a texture that does not tile
      // shows no seam in a preview.
      const float u = float(s) / float(segments), phi = u * 2 * std::numbers::pi_v<float>;
      const float x = -std::sin(theta) * std::sin(phi), y = std::cos(theta), z = -std::sin(theta) * std::cos(phi);
      m.position.insert(m.position.end(), {x, y, z});
      m.normal.insert(m.normal.end(), {x, y, z});
      m.uv.insert(m.uv.end(), {u, v});
      m.tangent.insert(m.tangent.end(), {-std::cos(phi), 0.0f, std::sin(phi), 1.0f});  // d(position)/du
      m.weights.insert(m.weights.end(), {1, 0, 0, 0});
      m.joints.insert(m.joints.end(), {0, 0, 0, 0});
      m.color.insert(m.color.end(), {1, 1, 1, 1});
    }
  }
  m.vertices = (rings + 1) * (segments + 1);
  for (std::uint32_t r = 0; r < rings; ++r)
    for (std::uint32_t s = 0; s < segments; ++s) {
      const std::uint32_t a = r * (segments + 1) + s, b = a + segments + 1;
      m.indices.insert(m.indices.end(), {a, b, a + 1, a + 1, b, b + 1});
    }
  return m;
}

std::vector<std::byte> vertex_stream(const PreviewMesh& mesh, const runtime::VertexInput& input) {
  const std::string& n = input.name;
  auto names = [&](std::initializer_list<const char*> words) {
    for (const char* w : words)
      if (n.find(w) != std::string::npos) return true;
    return false;
  };
  const std::string& t = input.type;
  const bool integer = t.rfind("uvec", 0) == 0 || t.rfind("ivec", 0) == 0 || t == "uint" || t == "int";
  const int components = (t == "float" || t == "int" || t == "uint") ? 1 : t.back() - '0';
  const std::vector<float>* floats = nullptr;
  int source = 0;
  if (names({"position"}))
    floats = &mesh.position, source = 3;
  else if (names({"normal"}))
    floats = &mesh.normal, source = 3;
  else if (names({"uv", "texcoord"}))
    floats = &mesh.uv, source = 2;
  else if (names({"tangent"}))
    floats = &mesh.tangent, source = 4;
  else if (names({"weight"}))
    floats = &mesh.weights, source = 4;
  else if (names({"color", "colour"}))
    floats = &mesh.color, source = 4;
  const bool joints = names({"joint"});
  std::vector<std::byte> out(std::size_t(mesh.vertices) * components * 4);
  for (std::uint32_t v = 0; v < mesh.vertices; ++v)
    for (int c = 0; c < components; ++c) {
      float value = 0;
      std::uint32_t whole = 0;
      if (floats && c < source) value = (*floats)[std::size_t(v) * source + c];
      if (joints) whole = mesh.joints[std::size_t(v) * 4 + std::min(c, 3)];
      std::byte* at = &out[(std::size_t(v) * components + c) * 4];
      if (integer) {
        if (!joints) whole = std::uint32_t(value);
        std::memcpy(at, &whole, 4);
      } else {
        std::memcpy(at, &value, 4);
      }
    }
  return out;
}

}  // namespace kiln::render
