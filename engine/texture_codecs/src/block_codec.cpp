#include "kiln/texture_codecs/block_codec.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

#include "codec_libraries.h"
#include "kiln/texture_codecs/bc7.h"

namespace kiln::texture_codecs {
namespace {

using textures::GpuFormat;

// Rows of blocks handed to one worker at a time.
constexpr std::uint32_t kRowsPerJob = 4;

int squish_flags(GpuFormat format) {
  switch (format) {
    case GpuFormat::kBc1: return squish::kDxt1 | squish::kColourClusterFit;
    case GpuFormat::kBc3: return squish::kDxt5 | squish::kColourClusterFit;
    case GpuFormat::kBc4: return squish::kBc4;
    case GpuFormat::kBc5: return squish::kBc5;
    default: return 0;
  }
}

// The 4x4 block at (bx, by), edge texels repeated past the level's edge.
void gather_block(const RgbaLevel& level, std::uint32_t bx, std::uint32_t by, std::uint8_t out[64]) {
  for (std::uint32_t y = 0; y < 4; ++y) {
    const std::uint32_t sy = std::min(level.height - 1, by * 4 + y);
    for (std::uint32_t x = 0; x < 4; ++x) {
      const std::uint32_t sx = std::min(level.width - 1, bx * 4 + x);
      std::memcpy(out + 4 * (y * 4 + x), &level.rgba[(std::size_t(sy) * level.width + sx) * 4], 4);
    }
  }
}

void for_rows(std::uint32_t rows, core::WorkerPool* pool, const std::function<void(std::uint32_t)>& body) {
  const std::uint32_t jobs = (rows + kRowsPerJob - 1) / kRowsPerJob;
  const auto run = [&](std::size_t job) {
    for (std::uint32_t r = std::uint32_t(job) * kRowsPerJob; r < std::min(rows, std::uint32_t(job + 1) * kRowsPerJob);
         ++r)
      body(r);
  };
  if (pool && jobs > 1)
    pool->parallel_for(jobs, run);
  else
    for (std::uint32_t job = 0; job < jobs; ++job) run(job);
}

Result<std::vector<std::byte>> encode_4x4(const RgbaLevel& level, GpuFormat format, const EncodeOptions& options,
                                          core::WorkerPool* pool) {
  const auto& info = textures::gpu_format_info(format);
  const std::uint32_t bw = (level.width + 3) / 4, bh = (level.height + 3) / 4;
  std::vector<std::byte> out(std::size_t(bw) * bh * info.block_bytes);
  const int flags = squish_flags(format);
  const Bc7Options bc7{options.bc7_partitions};
  const SquishLibrary* squish = nullptr;
  if (format != GpuFormat::kBc7) {
    auto loaded = squish_library();
    if (!loaded) return loaded.error();
    squish = *loaded;
  }
  for_rows(bh, pool, [&](std::uint32_t by) {
    std::uint8_t texels[64];
    for (std::uint32_t bx = 0; bx < bw; ++bx) {
      gather_block(level, bx, by, texels);
      auto* block = reinterpret_cast<std::uint8_t*>(&out[(std::size_t(by) * bw + bx) * info.block_bytes]);
      if (format == GpuFormat::kBc7) {
        encode_bc7_block(texels, block, bc7);
      } else {
        if (format == GpuFormat::kBc1)  // opaque: squish would spend the 3-colour mode on low alpha
          for (int i = 0; i < 16; ++i) texels[4 * i + 3] = 255;
        squish->compress_masked(texels, 0xffff, block, flags, nullptr);  // squish::Compress
      }
    }
  });
  return out;
}

// One BC4 block (8 bytes: two endpoints, sixteen 3-bit indices) into channel `channel` of `texels`.
// libsquish encodes BC4 and BC5 but decodes them as BC1, so Kiln decodes them itself.
void decode_bc4_block(const std::uint8_t* block, std::uint8_t texels[64], int channel) {
  const int r0 = block[0], r1 = block[1];
  int palette[8] = {r0, r1};
  if (r0 > r1) {
    for (int i = 1; i < 7; ++i) palette[i + 1] = ((7 - i) * r0 + i * r1 + 3) / 7;
  } else {
    for (int i = 1; i < 5; ++i) palette[i + 1] = ((5 - i) * r0 + i * r1 + 2) / 5;
    palette[6] = 0;
    palette[7] = 255;
  }
  std::uint64_t bits = 0;
  for (int i = 0; i < 6; ++i) bits |= std::uint64_t(block[2 + i]) << (8 * i);
  for (int i = 0; i < 16; ++i) texels[4 * i + channel] = std::uint8_t(palette[(bits >> (3 * i)) & 7]);
}

astcenc_profile astc_profile(bool srgb) { return srgb ? ASTCENC_PRF_LDR_SRGB : ASTCENC_PRF_LDR; }

std::string astcenc_error_text(const AstcencLibrary& astcenc, astcenc_error e) {
  return std::string("astcenc: ") + astcenc.get_error_string(e);
}

struct AstcContext {
  const AstcencLibrary& astcenc;
  astcenc_context* context = nullptr;
  ~AstcContext() {
    if (context) astcenc.context_free(context);
  }
};

// What an ASTC compression context is made for. Making one builds the block size's partition and
// weight tables, which costs as much as compressing a small texture, so contexts are kept and
// reused (a cook encodes many textures with few settings).
struct AstcKey {
  astcenc_profile profile;
  unsigned block, flags, threads;
  float effort;
  bool operator==(const AstcKey&) const = default;
};

// The contexts not in use, per key; a context is used by one encode at a time.
class AstcContexts {
 public:
  explicit AstcContexts(const AstcencLibrary& astcenc) : astcenc_(astcenc) {}

  Result<astcenc_context*> acquire(const AstcKey& key, const astcenc_config& config) {
    {
      std::lock_guard lock(mu_);
      for (auto& [k, free] : free_)
        if (k == key && !free.empty()) {
          astcenc_context* context = free.back();
          free.pop_back();
          return context;
        }
    }
    astcenc_context* context = nullptr;
    if (astcenc_error e = astcenc_.context_alloc(&config, key.threads, &context); e != ASTCENC_SUCCESS)
      return make_error(astcenc_error_text(astcenc_, e));
    return context;
  }
  // Back for the next encode with the same settings; at most kKept of each are kept.
  void release(const AstcKey& key, astcenc_context* context) {
    astcenc_.compress_reset(context);
    std::lock_guard lock(mu_);
    for (auto& [k, free] : free_)
      if (k == key) {
        if (free.size() < kKept) return free.push_back(context);
        astcenc_.context_free(context);
        return;
      }
    free_.push_back({key, {context}});
  }

 private:
  static constexpr std::size_t kKept = 4;
  const AstcencLibrary& astcenc_;
  std::mutex mu_;
  std::vector<std::pair<AstcKey, std::vector<astcenc_context*>>> free_;
};

// Kept for the life of the process (never destroyed: encodes may run until exit).
AstcContexts& astc_contexts(const AstcencLibrary& astcenc) {
  static auto* contexts = new AstcContexts(astcenc);
  return *contexts;
}

Result<std::vector<std::byte>> encode_astc(const RgbaLevel& level, GpuFormat format, const EncodeOptions& options,
                                           core::WorkerPool* pool) {
  auto loaded = astcenc_library();
  if (!loaded) return loaded.error();
  const AstcencLibrary& astcenc = **loaded;
  const auto& info = textures::gpu_format_info(format);
  astcenc_config config;
  // A compressing context never decodes others' blocks (decode_astc makes its own): the tables
  // only a general decoder needs are left out, as the astcenc tool does when it only compresses.
  const unsigned flags = (options.normal_map ? ASTCENC_FLG_MAP_NORMAL : 0) | ASTCENC_FLG_SELF_DECOMPRESS_ONLY;
  if (astcenc_error e = astcenc.config_init(astc_profile(options.srgb), info.block_width, info.block_height, 1,
                                            options.astc_effort, flags, &config);
      e != ASTCENC_SUCCESS)
    return make_error(astcenc_error_text(astcenc, e));
  const unsigned threads = pool ? unsigned(pool->size()) : 1u;
  const AstcKey key{astc_profile(options.srgb), info.block_width, flags, threads, options.astc_effort};
  auto context = astc_contexts(astcenc).acquire(key, config);
  if (!context) return context.error();
  struct Release {
    const AstcKey& key;
    astcenc_context* context;
    AstcContexts& contexts;
    ~Release() { contexts.release(key, context); }
  } release{key, *context, astc_contexts(astcenc)};
  // astcenc takes a non-const slice pointer for its input but only reads it.
  void* slices[1] = {const_cast<std::uint8_t*>(level.rgba.data())};
  astcenc_image image{level.width, level.height, 1, ASTCENC_TYPE_U8, slices};
  // A normal map's x and y as ASTC's normal-map mode wants them: x in RGB, y in alpha.
  const astcenc_swizzle swizzle = options.normal_map
                                      ? astcenc_swizzle{ASTCENC_SWZ_R, ASTCENC_SWZ_R, ASTCENC_SWZ_R, ASTCENC_SWZ_G}
                                      : astcenc_swizzle{ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B,
                                                        options.opaque ? ASTCENC_SWZ_1 : ASTCENC_SWZ_A};
  std::vector<std::byte> out(textures::gpu_level_bytes(format, level.width, level.height));
  std::mutex mu;
  astcenc_error failed = ASTCENC_SUCCESS;
  const auto run = [&](std::size_t thread) {
    const astcenc_error e = astcenc.compress_image(
        *context, &image, &swizzle, reinterpret_cast<std::uint8_t*>(out.data()), out.size(), unsigned(thread));
    if (e != ASTCENC_SUCCESS) {
      std::lock_guard lock(mu);
      failed = e;
    }
  };
  if (pool && threads > 1)
    pool->parallel_for(threads, run);
  else
    run(0);
  if (failed != ASTCENC_SUCCESS) return make_error(astcenc_error_text(astcenc, failed));
  return out;
}

Result<RgbaLevel> decode_astc(std::span<const std::byte> blocks, GpuFormat format, std::uint32_t width,
                              std::uint32_t height, bool srgb) {
  auto loaded = astcenc_library();
  if (!loaded) return loaded.error();
  const AstcencLibrary& astcenc = **loaded;
  const auto& info = textures::gpu_format_info(format);
  astcenc_config config;
  if (astcenc_error e = astcenc.config_init(astc_profile(srgb), info.block_width, info.block_height, 1,
                                            ASTCENC_PRE_FASTEST, ASTCENC_FLG_DECOMPRESS_ONLY, &config);
      e != ASTCENC_SUCCESS)
    return make_error(astcenc_error_text(astcenc, e));
  AstcContext ctx{astcenc};
  if (astcenc_error e = astcenc.context_alloc(&config, 1, &ctx.context); e != ASTCENC_SUCCESS)
    return make_error(astcenc_error_text(astcenc, e));
  RgbaLevel level{width, height, std::vector<std::uint8_t>(std::size_t(width) * height * 4)};
  void* slices[1] = {level.rgba.data()};
  astcenc_image image{width, height, 1, ASTCENC_TYPE_U8, slices};
  const astcenc_swizzle identity{ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};
  if (astcenc_error e = astcenc.decompress_image(ctx.context, reinterpret_cast<const std::uint8_t*>(blocks.data()),
                                                 blocks.size(), &image, &identity, 0);
      e != ASTCENC_SUCCESS)
    return make_error(astcenc_error_text(astcenc, e));
  return level;
}

}  // namespace

Result<std::vector<std::byte>> encode_level(const RgbaLevel& level, GpuFormat format, const EncodeOptions& options,
                                            core::WorkerPool* pool) {
  if (level.width == 0 || level.height == 0 || level.rgba.size() != std::size_t(level.width) * level.height * 4)
    return make_error("cannot encode an empty or inconsistent level");
  switch (textures::gpu_format_info(format).family) {
    case textures::GpuFormatFamily::kBc: return encode_4x4(level, format, options, pool);
    case textures::GpuFormatFamily::kAstc: return encode_astc(level, format, options, pool);
    case textures::GpuFormatFamily::kUncompressed: break;
  }
  if (format != GpuFormat::kRgba8)
    return make_error(std::string(textures::gpu_format_name(format)) + " is not a block format");
  const auto* p = reinterpret_cast<const std::byte*>(level.rgba.data());
  return std::vector<std::byte>(p, p + level.rgba.size());
}

Result<RgbaLevel> decode_level(std::span<const std::byte> blocks, GpuFormat format, std::uint32_t width,
                               std::uint32_t height, bool srgb) {
  const auto& info = textures::gpu_format_info(format);
  if (width == 0 || height == 0 || blocks.size() != textures::gpu_level_bytes(format, width, height))
    return make_error(std::string(info.name) + " level of " + std::to_string(width) + "x" + std::to_string(height) +
                      " cannot be " + std::to_string(blocks.size()) + " bytes");
  if (info.family == textures::GpuFormatFamily::kAstc) return decode_astc(blocks, format, width, height, srgb);
  RgbaLevel level{width, height, std::vector<std::uint8_t>(std::size_t(width) * height * 4)};
  if (format == GpuFormat::kRgba8) {
    std::memcpy(level.rgba.data(), blocks.data(), blocks.size());
    return level;
  }
  if (info.family != textures::GpuFormatFamily::kBc)
    return make_error(std::string(info.name) + " levels are not decoded here");
  const std::uint32_t bw = (width + 3) / 4, bh = (height + 3) / 4;
  const int flags = squish_flags(format);
  const SquishLibrary* squish = nullptr;
  if (format == GpuFormat::kBc1 || format == GpuFormat::kBc3) {
    auto loaded = squish_library();
    if (!loaded) return loaded.error();
    squish = *loaded;
  }
  for (std::uint32_t by = 0; by < bh; ++by)
    for (std::uint32_t bx = 0; bx < bw; ++bx) {
      const auto* block =
          reinterpret_cast<const std::uint8_t*>(&blocks[(std::size_t(by) * bw + bx) * info.block_bytes]);
      std::uint8_t texels[64];
      if (format == GpuFormat::kBc7) {
        decode_bc7_block(block, texels);
      } else if (format == GpuFormat::kBc4 || format == GpuFormat::kBc5) {
        // What the GPU reads: R (and G), the rest zero, alpha one.
        for (int i = 0; i < 16; ++i) texels[4 * i + 1] = texels[4 * i + 2] = 0, texels[4 * i + 3] = 255;
        decode_bc4_block(block, texels, 0);
        if (format == GpuFormat::kBc5) decode_bc4_block(block + 8, texels, 1);
      } else {
        squish->decompress(texels, block, flags);
        if (format == GpuFormat::kBc1)  // what the GPU reads of BC1 RGB: opaque
          for (int i = 0; i < 16; ++i) texels[4 * i + 3] = 255;
      }
      for (std::uint32_t y = 0; y < 4 && by * 4 + y < height; ++y)
        for (std::uint32_t x = 0; x < 4 && bx * 4 + x < width; ++x)
          std::memcpy(&level.rgba[(std::size_t(by * 4 + y) * width + bx * 4 + x) * 4], texels + 4 * (y * 4 + x), 4);
    }
  return level;
}

void apply_mapping(RgbaLevel& level, const textures::ChannelMapping& mapping) {
  if (mapping == textures::kIdentityMapping) return;
  for (std::size_t p = 0; p < level.rgba.size(); p += 4) {
    std::uint8_t in[6] = {level.rgba[p], level.rgba[p + 1], level.rgba[p + 2], level.rgba[p + 3], 0, 255};
    for (int c = 0; c < 4; ++c) level.rgba[p + c] = in[static_cast<int>(mapping[c])];
  }
}

std::string encoder_versions() {
  // libsquish has no version call; the package's version is what the build found.
  return "kiln-bc7 1, libsquish " KILN_SQUISH_VERSION ", astcenc " KILN_ASTCENC_VERSION;
}

}  // namespace kiln::texture_codecs
