#include "kiln/textures/texture_settings.h"

#include <cmath>

namespace kiln::textures {

std::optional<ColorSpace> parse_color_space(std::string_view name) {
  if (name == "srgb" || name == "sRGB") return ColorSpace::kSrgb;
  if (name == "linear") return ColorSpace::kLinear;
  return std::nullopt;
}

const char* color_space_name(ColorSpace space) { return space == ColorSpace::kSrgb ? "sRGB" : "linear"; }

float srgb_to_linear(float v) { return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f); }

float linear_to_srgb(float v) { return v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f; }

}  // namespace kiln::textures
