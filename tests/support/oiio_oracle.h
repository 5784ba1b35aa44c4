#pragma once
// OpenImageIO as the oracle of the texture tests: what OIIO reads from a file, and what its
// TextureSystem samples.

#include <array>
#include <filesystem>
#include <memory>
#include <string>

#include "kiln/textures/image.h"

namespace kiln::test {

// Mip level `level` of `path` as OIIO's ImageInput reads it, converted to 8-bit RGBA (gray spread,
// missing alpha opaque). Alpha is read as stored (OIIO would otherwise premultiply unassociated alpha).
textures::Image oiio_read_level(const std::filesystem::path& path, int level);

// OIIO's TextureSystem over one file, with its own cache of `budget_mb`.
class OiioTextures {
 public:
  explicit OiioTextures(float budget_mb = 64);
  ~OiioTextures();
  // wrap: "black", "clamp", "periodic", "mirror" or "s,t" with one of those per axis.
  std::array<float, 4> bilinear(const std::filesystem::path& path, float s, float t,
                                const std::string& wrap = "default");
  std::array<float, 4> trilinear(const std::filesystem::path& path, float s, float t, float dsdx, float dtdx,
                                 float dsdy, float dtdy, const std::string& wrap = "default");

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::test
