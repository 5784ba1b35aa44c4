#include "texture_commands.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "kiln/core/atomic_output.h"
#include "kiln/core/input_limits.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/texture_codecs/compress_tx.h"
#include "kiln/texture_codecs/texture_files.h"
#include "kiln/textures/compressed_texture.h"
#include "kiln/textures/thumbnail.h"
#include "kiln/textures/tile_cache.h"
#include "kiln/textures/tx_file.h"
#include "persistent_caches.h"

namespace kiln::cli {
namespace {

constexpr const char* kUsage =
    "usage: kiln texture info <file.tx|file.ktex> [--json]\n"
    "       kiln texture export <texture> [--level N] <out.png|out.dds|out.astc>\n"
    "       kiln texture thumb <texture> [--size S] <out.png>\n"
    "       kiln texture extract <cooked-set> <texture> [--target T] <out.tx>\n";

int usage() {
  std::fprintf(stderr, "%s", kUsage);
  return kExitUsage;
}

const char* alpha_name(textures::TxAlpha alpha) {
  switch (alpha) {
    case textures::TxAlpha::kAssociated: return "premultiplied";
    case textures::TxAlpha::kUnassociated: return "straight";
    case textures::TxAlpha::kNone: break;
  }
  return "none";
}

// A block-compressed texture as a cooked set ships it (what kiln texture extract writes), or
// nullopt when `path` is not one (a .tx, a source image).
Result<std::optional<std::string>> read_record(const std::string& path) {
  if (!input_present(path)) return std::optional<std::string>{};
  auto text = read_input_file(path, limits::kDecodedImageBytes, "texture");
  if (!text) return text.error();
  if (!textures::is_compressed_texture(std::as_bytes(std::span(*text)))) return std::optional<std::string>{};
  return std::optional<std::string>(std::move(*text));
}

int record_info(const Args& args, const std::string& bytes) {
  auto texture = textures::decode_compressed_texture(std::as_bytes(std::span(bytes)), args.words[2]);
  if (!texture) {
    std::fprintf(stderr, "%s\n", texture.error().message.c_str());
    return kExitFailed;
  }
  const auto& format = textures::gpu_format_info(texture->format);
  std::uint64_t gpu_bytes = 0;
  for (const auto& l : texture->levels) gpu_bytes += l.blocks.size();
  std::string mapping;
  for (textures::Swizzle s : texture->mapping) mapping += textures::swizzle_name(s);
  const std::string wrap =
      std::string(textures::wrap_mode_name(texture->wrap_s)) + "," + textures::wrap_mode_name(texture->wrap_t);
  const std::string block = std::to_string(format.block_width) + "x" + std::to_string(format.block_height);
  if (args.json) {
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& l : texture->levels)
      levels.push_back({{"width", l.width}, {"height", l.height}, {"bytes", l.blocks.size()}});
    nlohmann::json out = {{"file", args.words[2]},
                          {"format", format.name},
                          {"block", block},
                          {"block_bytes", format.block_bytes},
                          {"color_space", texture->srgb ? "sRGB" : "linear"},
                          {"levels", levels},
                          {"gpu_bytes", gpu_bytes},
                          {"wrap", wrap},
                          {"alpha", texture->alpha ? "premultiplied" : "none"},
                          {"normal_map", texture->normal_map},
                          {"filter", texture->nearest ? "nearest" : "linear"},
                          {"mapping", mapping}};
    std::printf("%s\n", out.dump().c_str());
    return kExitOk;
  }
  std::printf("%s: %ux%u, %s (%s blocks of %u bytes), %s, %zu levels, %s on the GPU, wrap %s, alpha %s%s%s\n",
              args.words[2].c_str(), texture->levels[0].width, texture->levels[0].height,
              std::string(format.name).c_str(), block.c_str(), format.block_bytes, texture->srgb ? "sRGB" : "linear",
              texture->levels.size(), describe_bytes(gpu_bytes).c_str(), wrap.c_str(),
              texture->alpha ? "premultiplied" : "none", texture->normal_map ? ", normal map (x, y)" : "",
              texture->nearest ? ", nearest filter" : "");
  for (std::size_t i = 0; i < texture->levels.size(); ++i)
    std::printf("  level %zu: %ux%u, %zu bytes\n", i, texture->levels[i].width, texture->levels[i].height,
                texture->levels[i].blocks.size());
  if (mapping != "rgba") std::printf("  sampled as %s (the view's channel mapping)\n", mapping.c_str());
  return kExitOk;
}

int info_command(const Args& args) {
  auto record = read_record(args.words[2]);
  if (!record) {
    std::fprintf(stderr, "%s\n", record.error().message.c_str());
    return kExitFailed;
  }
  if (*record) return record_info(args, **record);
  auto file = textures::TxFile::open(args.words[2]);
  if (!file) {
    std::fprintf(stderr, "%s\n", file.error().message.c_str());
    return kExitFailed;
  }
  const textures::TxInfo& info = (*file)->info();
  const std::string format = std::to_string(info.bits_per_sample) + "-bit " + (info.is_float ? "float" : "uint");
  const std::string wrap =
      std::string(textures::wrap_mode_name(info.wrap_s)) + "," + textures::wrap_mode_name(info.wrap_t);
  if (args.json) {
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& l : info.levels)
      levels.push_back({{"width", l.width},
                        {"height", l.height},
                        {"tile_width", l.tile_width},
                        {"tile_height", l.tile_height},
                        {"tiles_x", l.tiles_x()},
                        {"tiles_y", l.tiles_y()}});
    nlohmann::json out = {{"file", args.words[2]},
                          {"channels", info.channels},
                          {"format", format},
                          {"compression", info.compression},
                          {"levels", levels},
                          {"wrap", wrap},
                          {"sha1", info.sha1},
                          {"alpha", alpha_name(info.alpha)},
                          {"normal_map", info.normal_map},
                          {"filter", info.nearest ? "nearest" : "linear"}};
    if (!info.color_space.empty()) out["color_space"] = info.color_space;
    if (info.average_color) out["average_color"] = *info.average_color;
    if (info.constant_color) out["constant_color"] = *info.constant_color;
    std::printf("%s\n", out.dump().c_str());
    return kExitOk;
  }
  std::printf("%s: %ux%u, %d channels, %s, %s, %zu levels, wrap %s, alpha %s%s%s%s\n", args.words[2].c_str(),
              info.levels[0].width, info.levels[0].height, info.channels, format.c_str(), info.compression.c_str(),
              info.levels.size(), wrap.c_str(), alpha_name(info.alpha),
              info.color_space.empty() ? "" : (", " + info.color_space).c_str(), info.normal_map ? ", normal map" : "",
              info.nearest ? ", nearest filter" : "");
  for (std::size_t i = 0; i < info.levels.size(); ++i) {
    const auto& l = info.levels[i];
    std::printf("  level %zu: %ux%u, tiles %ux%u of %ux%u\n", i, l.width, l.height, l.tiles_x(), l.tiles_y(),
                l.tile_width, l.tile_height);
  }
  if (info.average_color)
    std::printf("  average colour %.4g %.4g %.4g %.4g\n", (*info.average_color)[0], (*info.average_color)[1],
                (*info.average_color)[2], (*info.average_color)[3]);
  if (info.constant_color) std::printf("  constant colour: one tile is the whole texture\n");
  if (!info.sha1.empty()) std::printf("  sha1 %s\n", info.sha1.substr(0, 12).c_str());
  return kExitOk;
}

// A non-negative integer option (`fallback` when not given), or nullopt (with a message) when malformed.
std::optional<std::uint32_t> number_option(const Args& args, const std::string& name, std::uint32_t fallback) {
  if (args.option_values(name).empty()) return fallback;
  const std::string text = args.option(name);
  char* end = nullptr;
  const unsigned long value = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value > 1u << 16) {
    std::fprintf(stderr, "kiln texture: %s needs a number, got \"%s\"\n", name.c_str(), text.c_str());
    return std::nullopt;
  }
  return std::uint32_t(value);
}

constexpr std::uint32_t kDefaultThumbnailSize = 256;

// export of a block-compressed texture: a level decoded to PNG (straight alpha, as image files
// hold it), every level as DDS (BC formats), or a level as an .astc file (ASTC).
int export_record(const Args& args, const std::string& bytes, std::uint32_t level) {
  const std::string& out = args.words[3];
  auto texture = textures::decode_compressed_texture(std::as_bytes(std::span(bytes)), args.words[2]);
  const auto written = [&]() -> Result<std::string> {
    if (!texture) return texture.error();
    const std::string extension = std::filesystem::path(out).extension().string();
    const std::string format(textures::gpu_format_name(texture->format));
    if (extension == ".dds") {
      KILN_TRY(texture_codecs::write_dds(*texture, out));
      return format + ", " + std::to_string(texture->levels.size()) + " levels";
    }
    if (extension == ".astc") {
      KILN_TRY(texture_codecs::write_astc_file(*texture, level, out));
      return format + " level " + std::to_string(level);
    }
    if (extension != ".png") return make_error(out + ": export writes .png, .dds or .astc");
    auto decoded = texture_codecs::decode_record_level(*texture, level);
    if (!decoded) return make_error(args.words[2] + ": " + decoded.error().message);
    textures::Image image{decoded->width, decoded->height, 4, std::move(decoded->rgba)};
    if (texture->alpha) textures::unpremultiply(image);
    KILN_TRY(textures::write_png(image, out));
    return std::to_string(image.width) + "x" + std::to_string(image.height) + " decoded from " + format + " level " +
           std::to_string(level);
  }();
  if (!written) {
    std::fprintf(stderr, "%s\n", written.error().message.c_str());
    return kExitFailed;
  }
  std::printf("%s: %s\n", out.c_str(), written->c_str());
  return kExitOk;
}

// export and thumb: a source image is read from its current .tx, or converted once into the cache
// root, as the engine reads textures. A thumbnail comes through the tile cache; an exported level is
// read at the file's precision. Both are written with straight alpha, as image files hold it.
int image_command(const Args& args, const std::string& verb) {
  const std::string option = verb == "export" ? "--level" : "--size";
  if (auto s = args.check_options({option}); !s) {
    std::fprintf(stderr, "kiln texture: %s\n", s.error().message.c_str());
    return kExitUsage;
  }
  // Level 0 (as oiiotool --selectmip reads by default); a thumbnail as wide as a file browser's.
  const auto number = number_option(args, option, verb == "export" ? 0 : kDefaultThumbnailSize);
  if (!number) return kExitUsage;
  if (verb == "export") {
    auto record = read_record(args.words[2]);
    if (!record) {
      std::fprintf(stderr, "%s\n", record.error().message.c_str());
      return kExitFailed;
    }
    if (*record) return export_record(args, **record, *number);
  }
  auto config = load_config(args.config);
  if (!config) {
    std::fprintf(stderr, "kiln: %s\n", config.error().message.c_str());
    return kExitUsage;
  }
  const auto store =
      open_cache_store(config->config, "kiln texture", open_remote_level(config->config, "kiln texture"));
  textures::TileCache cache(
      {.memory_budget_bytes = config->config.texture_memory_max_bytes, .conversions = store.get()});
  auto image = cache.open_texture(args.words[2]);
  if (!image) {
    std::fprintf(stderr, "%s\n", image.error().message.c_str());
    return kExitFailed;
  }
  // An export keeps the file's precision: a 16-bit or float file becomes a 16-bit PNG (an 8-bit
  // file an 8-bit one, as oiiotool writes them).
  const bool deep = verb == "export" && (*image)->info().bits_per_sample > 8;
  std::uint32_t width = 0, height = 0;
  const auto written = [&]() -> Status {
    if (verb == "export") {
      auto file = textures::TileCache::open_file(**image);  // at the file's precision, not the cache's RGBA8
      if (!file) return file.error();
      if (deep) {
        auto level = textures::export_level16(**file, *number, cache.budget_bytes());
        if (!level) return level.error();
        width = level->width, height = level->height;
        return textures::write_png16(*level, args.words[3]);
      }
      auto level = textures::export_level(**file, *number, cache.budget_bytes());
      if (!level) return level.error();
      width = level->width, height = level->height;
      return textures::write_png(*level, args.words[3]);
    }
    auto thumb = textures::make_thumbnail(cache, *image, std::max(1u, *number));
    if (!thumb) return thumb.error();
    if ((*image)->info().alpha != textures::TxAlpha::kNone) textures::unpremultiply(*thumb);
    width = thumb->width, height = thumb->height;
    return textures::write_png(*thumb, args.words[3]);
  }();
  if (!written) {
    std::fprintf(stderr, "%s\n", written.error().message.c_str());
    return kExitFailed;
  }
  const auto stats = cache.stats();
  std::printf("%s: %ux%u%s from level %zu (%llu tiles read)\n", args.words[3].c_str(), width, height,
              deep ? " 16-bit" : "",
              verb == "export" ? std::size_t(*number) : textures::thumbnail_level((*image)->info(), *number),
              static_cast<unsigned long long>(stats.tiles.loads));
  return kExitOk;
}

// extract: the bytes a cooked set ships for one texture, written whole through a temp file.
int extract_command(const Args& args) {
  if (auto s = args.check_options({"--target"}); !s) {
    std::fprintf(stderr, "kiln texture: %s\n", s.error().message.c_str());
    return kExitUsage;
  }
  auto set = runtime::CookedSet::open(args.words[2]);
  if (!set) {
    std::fprintf(stderr, "%s\n", set.error().message.c_str());
    return kExitFailed;
  }
  auto tx = (*set)->texture(args.words[3], args.option("--target"));
  if (!tx) {
    std::fprintf(stderr, "%s\n", tx.error().message.c_str());
    return kExitFailed;
  }
  if (Status written = write_file_atomically(args.words[4], *tx); !written) {
    std::fprintf(stderr, "%s\n", written.error().message.c_str());
    return kExitFailed;
  }
  std::printf("%s: %s of %s from %s\n", args.words[4].c_str(), describe_bytes(tx->size()).c_str(),
              args.words[3].c_str(), args.words[2].c_str());
  return kExitOk;
}

}  // namespace

int run_texture_command(const Args& args) {
  const std::string verb = args.words.size() > 1 ? args.words[1] : "";
  if (verb == "info" && args.words.size() == 3) {
    if (auto s = args.check_options({}); !s) {
      std::fprintf(stderr, "kiln texture: %s\n", s.error().message.c_str());
      return kExitUsage;
    }
    return info_command(args);
  }
  if ((verb == "export" || verb == "thumb") && args.words.size() == 4) return image_command(args, verb);
  if (verb == "extract" && args.words.size() == 5) return extract_command(args);
  return usage();
}

}  // namespace kiln::cli
