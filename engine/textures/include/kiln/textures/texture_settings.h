#pragma once
// How a texture's values are meant: the settings a conversion to .tx follows and records.
//
// Thread-safety: plain values and free functions.

#include <optional>
#include <string_view>

namespace kiln::textures {

// The encoding of colour values: sRGB (8-bit colour an artist paints) or linear (data, HDR).
// Alpha is always linear.
enum class ColorSpace { kSrgb, kLinear };

struct TextureSettings {
  ColorSpace color_space = ColorSpace::kSrgb;
  bool normal_map = false;  // tangent-space vectors in RGB: linear, renormalised on every mip level
};

// "srgb" / "sRGB", "linear"; nullopt for anything else.
std::optional<ColorSpace> parse_color_space(std::string_view name);
// The name OpenImageIO uses in oiio:ColorSpace: "sRGB" or "linear".
const char* color_space_name(ColorSpace space);

// sRGB's transfer functions (IEC 61966-2-1), on values in [0, 1].
float srgb_to_linear(float encoded);
float linear_to_srgb(float linear);

}  // namespace kiln::textures
