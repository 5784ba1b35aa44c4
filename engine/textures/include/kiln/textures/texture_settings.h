#pragma once
// How a texture's values are meant: the settings a conversion to .tx follows, keys and records.
//
// Where they come from, each later one winning for the settings it names:
//   1. the slot's default: a slot whose name says normals ("normal", "normal_map", "*_normal") is a
//      normal map; one that says data ("roughness", "metallic", "mask", "height", "ao", "occlusion",
//      "displacement", "data", or a name containing one of them) is linear; any other is colour;
//   2. for colour, what the source declares (a PNG's sRGB or gAMA chunk), else sRGB;
//   3. a sidecar next to the source, `<source>.json` ("textures/brick.png.json");
//   4. the material's entry, when it is an object: {"file": "...", "color_space": ...}.
// The settings object (sidecar or entry): "color_space": "srgb" | "linear", "normal_map": bool,
// "wrap": "black" | "clamp" | "periodic" | "mirror" or ["s", "t"], "filter": "linear" | "nearest",
// "compression": "zip" | "zstd" | "none" (how the .tx stores its tiles: zip is the smallest and what
// maketx writes; zstd decodes several times faster at about the same size; none is the fastest to
// read, a tile miss costing one positional read, at the size of the raw pixels), "gpu_format": the
// format the texture ships in, overriding the target's choice (gpu_format.h): "bc7" for BC targets,
// "astc4x4" for ASTC ones, "rgba8" for every target, or {"bc": "bc3", "astc": "astc5x5"}; a target
// of the other family keeps its own choice. It changes what ships, not the .tx.
//
// Thread-safety: plain values and free functions.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "kiln/core/result.h"
#include "kiln/textures/gpu_format.h"
#include "kiln/textures/tx_file.h"

namespace kiln::textures {

// The encoding of colour values: sRGB (8-bit colour an artist paints) or linear (data, HDR).
// Alpha is always linear.
enum class ColorSpace { kSrgb, kLinear };
// How a renderer samples the texture between texels (mips are always box filtered).
enum class TextureFilter { kLinear, kNearest };
// How the .tx stores its tiles.
enum class TileCompression { kZip, kZstd, kNone };

struct TextureSettings {
  ColorSpace color_space = ColorSpace::kSrgb;
  // Nothing named the colour space: the source's declaration decides, else color_space (sRGB).
  bool source_color_space = false;
  bool normal_map = false;  // tangent-space vectors in RGB: linear, renormalised on every mip level
  WrapMode wrap_s = WrapMode::Periodic, wrap_t = WrapMode::Periodic;
  TextureFilter filter = TextureFilter::kLinear;
  TileCompression compression = TileCompression::kZip;
  // The longest side level 0 may have (0: no cap): the levels above it are left out, so level 0 is
  // the first mip level that fits, filtered as every level is.
  std::uint32_t max_size = 0;
  GpuFormatOverride gpu_format;  // not part of the .tx: how the cook encodes it for a target
  bool operator==(const TextureSettings&) const = default;
};

// Settings named by a sidecar or a material entry; what is absent comes from elsewhere.
struct TextureOptions {
  std::optional<ColorSpace> color_space;
  std::optional<bool> normal_map;
  std::optional<WrapMode> wrap_s, wrap_t;
  std::optional<TextureFilter> filter;
  std::optional<TileCompression> compression;
  std::optional<GpuFormatOverride> gpu_format;
};

// The settings object's fields other than "file"; problems name `where` and the JSON pointer
// (`where: /wrap: ...`), all of them, one per line.
Result<TextureOptions> parse_texture_options(const std::string& where, const nlohmann::json& object,
                                             const std::string& pointer = "");
// `<source>.json` if it exists (nullopt if not); a broken one is an error naming it.
Result<std::optional<TextureOptions>> read_texture_sidecar(const std::filesystem::path& source);
std::filesystem::path texture_sidecar_path(const std::filesystem::path& source);

// The rules above, but for the source's declaration, which only the conversion reads. `slot` may be
// empty (a texture opened by name alone: colour).
TextureSettings resolve_texture_settings(std::string_view slot, const TextureOptions* sidecar,
                                         const TextureOptions* entry);
// The settings of a texture opened by its file name alone (a tool, the editor's previews): colour,
// with the sidecar's settings. A broken sidecar is an error naming it.
Result<TextureSettings> settings_for_file(const std::filesystem::path& source);

// One line that names the settings: part of a conversion's cache key and of messages.
std::string describe_settings(const TextureSettings& settings);

// "srgb" / "sRGB", "linear"; nullopt for anything else.
std::optional<ColorSpace> parse_color_space(std::string_view name);
// The name OpenImageIO uses in oiio:ColorSpace: "sRGB" or "linear".
const char* color_space_name(ColorSpace space);
const char* filter_name(TextureFilter filter);
// "zip", "zstd", "none".
std::optional<TileCompression> parse_compression(std::string_view name);
const char* compression_name(TileCompression compression);

// sRGB's transfer functions (IEC 61966-2-1), on values in [0, 1].
float srgb_to_linear(float encoded);
float linear_to_srgb(float linear);

}  // namespace kiln::textures
