// GPU texture formats side by side on the same images:
//   encode IMAGE... [--threads N]   per image and format: encode rate (megapixels per second) and
//                                   PSNR against the source; BC1/BC3 also through libsquish's own
//                                   CompressImage (the library alone, one thread, as Kiln's
//                                   per-block loop runs with --threads 1)
//   encode-once IMAGE FORMAT        one encode's rate, its context made beforehand
//   upload SET...                   per cooked set: the time to upload every texture to the GPU
//                                   (the device KILN_RENDER_DEVICE names), median of 5
// bench/bench_gpu_textures.sh runs both, the astcenc tool at the same settings, and the cooks.
#include <squish.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "kiln/render/gpu_texture.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/texture_codecs/block_codec.h"
#include "kiln/textures/image.h"

using namespace kiln;
using Clock = std::chrono::steady_clock;

namespace {

double psnr(const texture_codecs::RgbaLevel& a, const texture_codecs::RgbaLevel& b, int channels) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t p = 0; p < a.rgba.size(); p += 4)
    for (int c = 0; c < channels; ++c, ++n) {
      const double d = double(a.rgba[p + c]) - double(b.rgba[p + c]);
      sum += d * d;
    }
  return sum == 0 ? 99.0 : 10.0 * std::log10(255.0 * 255.0 * double(n) / sum);
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

int encode(const std::vector<std::string>& files, int threads) {
  using textures::GpuFormat;
  core::WorkerPool pool(threads);
  const GpuFormat formats[] = {GpuFormat::kBc1,     GpuFormat::kBc3,     GpuFormat::kBc7,
                               GpuFormat::kAstc4x4, GpuFormat::kAstc6x6, GpuFormat::kAstc8x8};
  std::printf("| image | format | MP/s | PSNR dB |\n|---|---|---|---|\n");
  for (const std::string& file : files) {
    auto image = textures::read_image(file);
    if (!image) {
      std::fprintf(stderr, "%s\n", image.error().message.c_str());
      return 1;
    }
    const textures::Image rgba = textures::to_rgba(*image);
    const texture_codecs::RgbaLevel level{rgba.width, rgba.height, rgba.pixels};
    const double megapixels = double(level.width) * level.height / 1e6;
    const std::string name = file.substr(file.find_last_of('/') + 1);
    for (GpuFormat format : formats) {
      const auto start = Clock::now();
      const texture_codecs::EncodeOptions options{.opaque = image->channels == 1 || image->channels == 3};
      auto blocks = texture_codecs::encode_level(level, format, options, threads > 1 ? &pool : nullptr);
      const double s = seconds_since(start);
      if (!blocks) return std::fprintf(stderr, "%s\n", blocks.error().message.c_str()), 1;
      auto back = texture_codecs::decode_level(*blocks, format, level.width, level.height);
      if (!back) return std::fprintf(stderr, "%s\n", back.error().message.c_str()), 1;
      std::printf("| %s | %s | %.2f | %.2f |\n", name.c_str(), std::string(textures::gpu_format_name(format)).c_str(),
                  megapixels / s, psnr(level, *back, 3));
    }
    // libsquish alone: its own image loop (it may run it on OpenMP threads), the same flags.
    for (auto [label, flags] :
         {std::pair{"bc1 (libsquish CompressImage)", squish::kDxt1 | squish::kColourClusterFit},
          std::pair{"bc3 (libsquish CompressImage)", squish::kDxt5 | squish::kColourClusterFit}}) {
      std::vector<std::uint8_t> out(
          std::size_t(squish::GetStorageRequirements(int(level.width), int(level.height), flags)));
      const auto start = Clock::now();
      squish::CompressImage(level.rgba.data(), int(level.width), int(level.height), out.data(), flags);
      std::printf("| %s | %s | %.2f | |\n", name.c_str(), label, megapixels / seconds_since(start));
    }
  }
  return 0;
}

// One image encoded as `format` on one thread, after a first encode that makes the compression
// context (as astcenc's "coding rate" leaves its context out): megapixels per second.
int encode_once(const std::string& file, const std::string& format_name) {
  auto image = textures::read_image(file);
  const auto format = textures::parse_gpu_format(format_name);
  if (!image || !format)
    return std::fprintf(stderr, "cannot read %s or no format %s\n", file.c_str(), format_name.c_str()), 1;
  const textures::Image rgba = textures::to_rgba(*image);
  const texture_codecs::RgbaLevel level{rgba.width, rgba.height, rgba.pixels};
  // As the cook encodes it: an image without alpha as opaque.
  const texture_codecs::EncodeOptions options{.opaque = image->channels == 1 || image->channels == 3};
  if (!texture_codecs::encode_level(level, *format, options)) return 1;
  const auto start = Clock::now();
  if (!texture_codecs::encode_level(level, *format, options)) return 1;
  std::printf("%.4f\n", double(level.width) * level.height / 1e6 / seconds_since(start));
  return 0;
}

int upload(const std::vector<std::string>& sets) {
  auto context = render::VulkanContext::create({});
  if (!context) return std::fprintf(stderr, "%s\n", context.error().message.c_str()), 1;
  std::printf("| set | textures | upload ms (median of 5) |\n|---|---|---|\n");
  for (const std::string& dir : sets) {
    auto set = runtime::CookedSet::open(dir);
    if (!set) return std::fprintf(stderr, "%s\n", set.error().message.c_str()), 1;
    const auto files = (*set)->ids(runtime::EntryKind::kTexture);
    std::vector<double> times;
    for (int run = 0; run < 5; ++run) {
      const auto start = Clock::now();
      for (const std::string& file : files) {
        if (file.find(':') != std::string::npos) continue;  // another target's copy
        auto bytes = (*set)->texture(file);
        if (!bytes) return std::fprintf(stderr, "%s\n", bytes.error().message.c_str()), 1;
        auto texture = render::GpuTexture::upload(**context, file, *bytes, {.decode_unsupported = true});
        if (!texture) return std::fprintf(stderr, "%s\n", texture.error().message.c_str()), 1;
      }
      times.push_back(seconds_since(start) * 1000);
    }
    std::sort(times.begin(), times.end());
    std::printf("| %s | %zu | %.1f |\n", std::filesystem::path(dir).filename().c_str(), files.size(), times[2]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int threads = 1;
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--threads") {
      threads = std::max(1, std::atoi(args[i + 1].c_str()));
      args.erase(args.begin() + long(i), args.begin() + long(i) + 2);
      break;
    }
  if (args.size() >= 2 && args[0] == "encode") return encode({args.begin() + 1, args.end()}, threads);
  if (args.size() >= 2 && args[0] == "upload") return upload({args.begin() + 1, args.end()});
  if (args.size() == 3 && args[0] == "encode-once") return encode_once(args[1], args[2]);
  std::fprintf(stderr,
               "usage: bench_gpu_textures encode IMAGE... [--threads N] | encode-once IMAGE FORMAT | upload SET...\n");
  return 2;
}
