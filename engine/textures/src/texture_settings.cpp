#include "kiln/textures/texture_settings.h"

#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

#include "kiln/core/input_limits.h"
#include "kiln/core/json_document.h"
#include "kiln/core/text.h"

namespace kiln::textures {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool names_any(std::string_view slot, std::initializer_list<std::string_view> words) {
  for (auto w : words)
    if (slot.find(w) != std::string_view::npos) return true;
  return false;
}

enum class GpuFamilyWanted { kBc, kAstc };

std::optional<TextureFilter> parse_filter(std::string_view name) {
  if (name == "linear") return TextureFilter::kLinear;
  if (name == "nearest") return TextureFilter::kNearest;
  return std::nullopt;
}

// "bc7" (for the targets of its family), "rgba8" (for every target) or {"bc": "bc7", "astc": "astc4x4"}.
Result<GpuFormatOverride> parse_gpu_format_override(const json& v) {
  const std::string expected =
      "expected a format (" + gpu_format_names() + ") or {\"bc\": ..., \"astc\": ...}, got " + v.dump();
  GpuFormatOverride out;
  const auto take = [&](const json& name, std::optional<GpuFamilyWanted> family) -> Status {
    const auto format = name.is_string() ? parse_gpu_format(name.get<std::string>()) : std::nullopt;
    if (!format || *format == GpuFormat::kRgba16f) return make_error(expected);
    const GpuFormatFamily f = gpu_format_info(*format).family;
    if (family && f != GpuFormatFamily::kUncompressed &&
        f != (*family == GpuFamilyWanted::kBc ? GpuFormatFamily::kBc : GpuFormatFamily::kAstc))
      return make_error(std::string(gpu_format_name(*format)) + " is not a format of " +
                        (*family == GpuFamilyWanted::kBc ? "BC" : "ASTC") + " targets");
    if (f != GpuFormatFamily::kAstc && (!family || *family == GpuFamilyWanted::kBc)) out.bc = *format;
    if (f != GpuFormatFamily::kBc && (!family || *family == GpuFamilyWanted::kAstc)) out.astc = *format;
    return {};
  };
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it.key() != "bc" && it.key() != "astc")
        return make_error("unknown family '" + it.key() + "' (expected bc, astc)");
      KILN_TRY(take(*it, it.key() == "bc" ? GpuFamilyWanted::kBc : GpuFamilyWanted::kAstc));
    }
    return out;
  }
  KILN_TRY(take(v, std::nullopt));
  return out;
}

}  // namespace

Result<TextureOptions> parse_texture_options(const std::string& where, const json& object, const std::string& pointer) {
  std::string problems;
  auto problem = [&](const std::string& field, const std::string& text) {
    problems += (problems.empty() ? "" : "\n") + where + ": " + pointer + "/" + field + ": " + text;
  };
  TextureOptions out;
  if (!object.is_object()) return make_error(where + ": " + (pointer.empty() ? "/" : pointer) + ": expected an object");
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    const json& v = *it;
    if (key == "file") continue;  // the material entry's source: read by the material
    if (key == "color_space") {
      auto space = v.is_string() ? parse_color_space(v.get<std::string>()) : std::nullopt;
      if (!space) problem(key, "expected \"srgb\" or \"linear\", got " + v.dump());
      out.color_space = space;
    } else if (key == "normal_map") {
      if (!v.is_boolean())
        problem(key, "expected true or false, got " + v.dump());
      else
        out.normal_map = v.get<bool>();
    } else if (key == "wrap") {
      const bool pair = v.is_array() && v.size() == 2 && v[0].is_string() && v[1].is_string();
      const auto s = pair            ? parse_wrap_mode(v[0].get<std::string>())
                     : v.is_string() ? parse_wrap_mode(v.get<std::string>())
                                     : std::nullopt;
      const auto t = pair ? parse_wrap_mode(v[1].get<std::string>()) : s;
      if (!s || !t) problem(key, "expected black, clamp, periodic or mirror, or [s, t] of them, got " + v.dump());
      out.wrap_s = s, out.wrap_t = t;
    } else if (key == "filter") {
      auto filter = v.is_string() ? parse_filter(v.get<std::string>()) : std::nullopt;
      if (!filter) problem(key, "expected \"linear\" or \"nearest\", got " + v.dump());
      out.filter = filter;
    } else if (key == "compression") {
      auto compression = v.is_string() ? parse_compression(v.get<std::string>()) : std::nullopt;
      if (!compression) problem(key, "expected \"zip\", \"zstd\" or \"none\", got " + v.dump());
      out.compression = compression;
    } else if (key == "gpu_format") {
      if (auto parsed = parse_gpu_format_override(v))
        out.gpu_format = *parsed;
      else
        problem(key, parsed.error().message);
    } else {
      problem(json_pointer_token(key),
              "unknown setting (expected color_space, normal_map, wrap, filter, compression, gpu_format)" +
                  did_you_mean(key, {"color_space", "normal_map", "wrap", "filter", "compression", "gpu_format"}));
    }
  }
  if (!problems.empty()) return make_error(problems);
  return out;
}

fs::path texture_sidecar_path(const fs::path& source) { return fs::path(source.string() + ".json"); }

Result<std::optional<TextureOptions>> read_texture_sidecar(const fs::path& source) {
  const fs::path sidecar = texture_sidecar_path(source);
  if (!input_present(sidecar)) return std::optional<TextureOptions>{};
  auto text = read_input_file(sidecar, limits::kJsonFileBytes, "texture settings");
  if (!text) return text.error();
  auto doc = parse_json_document(sidecar.string(), *text);
  if (!doc) return doc.error();
  auto options = parse_texture_options(sidecar.string(), *doc);
  if (!options) return options.error();
  return std::optional<TextureOptions>(*options);
}

TextureSettings resolve_texture_settings(std::string_view slot, const TextureOptions* sidecar,
                                         const TextureOptions* entry) {
  TextureSettings s;
  if (names_any(slot, {"normal"})) {
    s.normal_map = true;
    s.color_space = ColorSpace::kLinear;
  } else if (names_any(slot, {"roughness", "metallic", "mask", "height", "ao", "occlusion", "displacement", "data"})) {
    s.color_space = ColorSpace::kLinear;
  } else {
    s.source_color_space = true;
  }
  for (const TextureOptions* o : {sidecar, entry}) {
    if (!o) continue;
    if (o->normal_map) {
      s.normal_map = *o->normal_map;
      if (s.normal_map) s.color_space = ColorSpace::kLinear, s.source_color_space = false;
    }
    if (o->color_space) s.color_space = *o->color_space, s.source_color_space = false;
    if (o->wrap_s) s.wrap_s = *o->wrap_s;
    if (o->wrap_t) s.wrap_t = *o->wrap_t;
    if (o->filter) s.filter = *o->filter;
    if (o->compression) s.compression = *o->compression;
    if (o->gpu_format) s.gpu_format = *o->gpu_format;
  }
  return s;
}

Result<TextureSettings> settings_for_file(const fs::path& source) {
  auto sidecar = read_texture_sidecar(source);
  if (!sidecar) return sidecar.error();
  return resolve_texture_settings("", *sidecar ? &**sidecar : nullptr, nullptr);
}

std::string describe_settings(const TextureSettings& s) {
  return std::string(s.source_color_space ? "declared-else-" : "") + color_space_name(s.color_space) +
         (s.normal_map ? " normal-map" : "") + " wrap " + wrap_mode_name(s.wrap_s) + "," + wrap_mode_name(s.wrap_t) +
         " filter " + filter_name(s.filter) + " compression " + compression_name(s.compression) +
         (s.max_size ? " max_size " + std::to_string(s.max_size) : std::string());
}

std::optional<ColorSpace> parse_color_space(std::string_view name) {
  if (name == "srgb" || name == "sRGB") return ColorSpace::kSrgb;
  if (name == "linear") return ColorSpace::kLinear;
  return std::nullopt;
}

const char* color_space_name(ColorSpace space) { return space == ColorSpace::kSrgb ? "sRGB" : "linear"; }
const char* filter_name(TextureFilter filter) { return filter == TextureFilter::kLinear ? "linear" : "nearest"; }

std::optional<TileCompression> parse_compression(std::string_view name) {
  if (name == "zip") return TileCompression::kZip;
  if (name == "zstd") return TileCompression::kZstd;
  if (name == "none") return TileCompression::kNone;
  return std::nullopt;
}

const char* compression_name(TileCompression compression) {
  switch (compression) {
    case TileCompression::kZip: return "zip";
    case TileCompression::kZstd: return "zstd";
    case TileCompression::kNone: return "none";
  }
  return "zip";
}

float srgb_to_linear(float v) { return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f); }

float linear_to_srgb(float v) { return v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f; }

}  // namespace kiln::textures
