#pragma once
// OpenImageIO as the oracle of the texture tests: what OIIO reads from a file, and what its
// TextureSystem samples.

#include <array>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kiln/textures/image.h"

namespace kiln::test {

// Mip level `level` of `path` as OIIO's ImageInput reads it, converted to 8-bit RGBA (gray spread,
// missing alpha opaque). Alpha is read as stored (OIIO would otherwise premultiply unassociated alpha).
textures::Image oiio_read_level(const std::filesystem::path& path, int level);

// RGBA8 with straight colour to premultiplied: each colour v * a / 255, rounded.
textures::Image premultiplied(textures::Image rgba);

// An image file as OIIO reads it, as RGBA floats in [0, 1] (gray spread, missing alpha opaque),
// colour as stored (a PNG's straight alpha is not premultiplied).
struct FloatPixels {
  int width = 0, height = 0, channels = 0;  // channels: of the file; pixels are always RGBA
  std::vector<float> rgba;
};
FloatPixels oiio_read_rgba(const std::filesystem::path& path, int level = 0);

// The largest difference between two RGBA float images of one size, in 1/255 steps.
float max_difference_255(const FloatPixels& a, const FloatPixels& b);

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
