// Textures shipped block-compressed, through the real cook and player on lavapipe with the
// validation layer: the BC frame against the RGBA8 frame, the bytes, and an ASTC set on a device
// that samples no ASTC (refused naming the format, or decoded when render.decode_textures says so).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cache_entries.h"
#include "child_process.h"
#include "cook_run.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/textures/image.h"
#include "lavapipe.h"
#include "oiio_oracle.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// The sample project with its textures shipped as `textures` ("" leaves kiln.json out).
fs::path project_shipping(const test::TempDir& dir, const std::string& textures) {
  const fs::path root = dir / ("project-" + (textures.empty() ? std::string("rgba8") : textures));
  fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", root, fs::copy_options::recursive);
  if (!textures.empty())
    std::ofstream(root / "kiln.json") << R"({"cook": {"targets": [{"backend": "spirv", "target_env": "vulkan1.0", )"
                                      << R"("textures": ")" << textures << R"("}]}})";
  return root;
}

nlohmann::json cook(const test::TempDir& dir, const fs::path& project, const fs::path& out) {
  auto cooked = test::run_process({KILN_CLI, "cook", project.string(), "--out", out.string(), "--json",
                                   "--cache-root=" + (dir / "cache").string()});
  REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
  return nlohmann::json::parse(cooked.output.substr(cooked.output.find('{')));
}

double psnr(const textures::Image& a, const textures::Image& b) {
  REQUIRE(a.pixels.size() == b.pixels.size());
  double sum = 0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) {
    const double d = double(a.pixels[i]) - double(b.pixels[i]);
    sum += d * d;
  }
  const double mse = sum / double(a.pixels.size());
  return mse == 0 ? 99 : 10 * std::log10(255.0 * 255.0 / mse);
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a cook that encodes no block format maps neither libsquish nor libastcenc - each loads when asked for") {
    test::TempDir dir("codec-libraries");
    const auto mapped = [&](const std::string& textures) {
      const fs::path project = project_shipping(dir, textures);
      const std::string name = textures.empty() ? "rgba8" : textures;
      return test::libraries_mapped_by_tools({KILN_CLI, "cook", project.string(), "--out", (dir / name).string(),
                                              "--cache-root", (dir / "cache").string()},
                                             dir / ("trace-" + name));
    };
    const auto plain = mapped("");
    // libgomp comes with libsquish, GMP with libhogweed (whose signature check no cook makes).
    for (const char* library :
         {"libsquish.so.0", "libastcenc.so.3d", "libgomp.so.1", "libhogweed.so.6", "libgmp.so.10"}) {
      CAPTURE(library);
      CHECK_FALSE(plain.count(library));
    }
    const auto bc = mapped("bc");
    CHECK(bc.count("libsquish.so.0"));
    CHECK_FALSE(bc.count("libastcenc.so.3d"));
    const auto astc = mapped("astc");
    CHECK(astc.count("libastcenc.so.3d"));
    CHECK_FALSE(astc.count("libsquish.so.0"));
  }

  TEST_CASE("a BC set plays on lavapipe within 30 dB of the RGBA8 frame at a quarter of the bytes") {
    if (test::lavapipe_icd().empty()) return;
    test::TempDir dir("gpu-textures");
    const auto rgba_report = cook(dir, project_shipping(dir, ""), dir / "rgba");
    const auto bc_report = cook(dir, project_shipping(dir, "bc"), dir / "bc");
    const auto& textures = bc_report["textures"];
    CHECK(textures["formats"]["bc1"].get<int>() >= 1);
    CHECK(textures["formats"]["bc5"] == 1);  // the normal map
    CHECK(textures["formats"].size() >= 2);
    CHECK(textures["encoded"] == 6);
    CHECK(textures["gpu_bytes"].get<double>() * 4 <= textures["rgba8_gpu_bytes"].get<double>());
    CHECK(rgba_report["textures"]["gpu_bytes"] == rgba_report["textures"]["rgba8_gpu_bytes"]);
    // The reader says what each texture ships as.
    {
      auto set = runtime::CookedSet::open(dir / "bc");
      REQUIRE(set);
      auto normal = (*set)->texture_description("textures/brick_normal.png");
      REQUIRE(normal);
      CHECK(normal->format == textures::GpuFormat::kBc5);
      CHECK_FALSE(normal->tx);
      CHECK(normal->normal_map);
      CHECK(normal->levels.size() > 1);
      CHECK(normal->levels[0].bytes ==
            textures::gpu_level_bytes(textures::GpuFormat::kBc5, normal->levels[0].width, normal->levels[0].height));
      auto rgba = runtime::CookedSet::open(dir / "rgba");
      REQUIRE(rgba);
      auto tx = (*rgba)->texture_description("textures/brick_normal.png");
      REQUIRE(tx);
      CHECK(tx->format == textures::GpuFormat::kRgba8);
      CHECK(tx->tx);
    }
    // A cached encoding damaged behind the store's checksums is found, dropped and encoded again;
    // the set is the same.
    int damaged = 0;
    for (const fs::path& entry : test::cache_entries(dir / "cache", "textures")) {
      std::string payload = test::blob_payload(entry);
      if (payload.rfind("KILNGTEX", 0) != 0) continue;
      payload[40] = char(payload[40] ^ 0x40);  // level 0's height
      test::rewrite_blob_payload(entry, payload);
      ++damaged;
      break;
    }
    REQUIRE(damaged == 1);
    const auto again = cook(dir, dir / "project-bc", dir / "bc3");
    CHECK(again["textures"]["encoded"] == 1);  // the others come from the cache
    CHECK(again["textures"]["cache_discarded"].get<int>() >= 1);
    const auto pack_of = [&](const fs::path& set) {
      for (const auto& e : fs::directory_iterator(set))
        if (e.path().filename().string().rfind("textures.", 0) == 0) return e.path().filename().string();
      return std::string();
    };
    CHECK(pack_of(dir / "bc3") == pack_of(dir / "bc"));
    // The target's quality is part of the encoding's key: high quality takes BC7 for all colour.
    std::ofstream(dir / "project-bc" / "kiln.json")
        << R"({"cook": {"targets": [{"backend": "spirv", "target_env": "vulkan1.0", "textures": "bc", )"
        << R"("texture_quality": "high"}]}})";
    const auto high = cook(dir, dir / "project-bc", dir / "bc-high");
    CHECK(high["textures"]["formats"].contains("bc7"));
    CHECK_FALSE(high["textures"]["formats"].contains("bc1"));
    CHECK(high["textures"]["encoded"].get<int>() >= 4);

    const auto env = test::lavapipe_env();
    for (const char* set : {"rgba", "bc"}) {
      auto played = test::run_process({KILN_PLAYER, (dir / set).string(), "--frames", "1", "--render",
                                       (dir / (std::string(set) + "-frame")).string(), "--require-gpu", "--json",
                                       "--cache-root", (dir / "player-cache").string()},
                                      env);
      REQUIRE_MESSAGE(played.exit_code == 0, played.output);
      const auto report = nlohmann::json::parse(played.output.substr(played.output.find('{')));
      CHECK(report["gpu"]["validation"]["on"] == true);
      CHECK(report["gpu"]["validation"]["messages"].empty());
      CHECK(report["gpu"]["textures"]["decoded"] == 0);
      if (std::string(set) == "bc") CHECK(report["gpu"]["textures"]["formats"].contains("bc5"));
    }
    // What the set ships, taken out: described, decoded to PNG, and written as DDS.
    const std::string ktex = (dir / "brick.ktex").string();
    auto r = test::run_process({KILN_CLI, "texture", "extract", (dir / "bc").string(), "textures/brick.png", ktex});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    r = test::run_process({KILN_CLI, "texture", "info", ktex, "--json"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto info = nlohmann::json::parse(r.output);
    CHECK(info["format"] == "bc1");
    CHECK(info["block"] == "4x4");
    CHECK(info["color_space"] == "sRGB");
    CHECK(info["levels"].size() > 1);
    r = test::run_process({KILN_CLI, "texture", "info", ktex});
    CHECK(r.output.find("bc1 (4x4 blocks of 8 bytes), sRGB") != std::string::npos);
    // sRGB BC1 as DDS names DXGI_FORMAT_BC1_UNORM_SRGB in a DX10 header (OpenImageIO 2.4 reads
    // none of the sRGB formats, so its bytes are checked here; the linear normal map goes to OIIO).
    r = test::run_process({KILN_CLI, "texture", "export", ktex, (dir / "brick.dds").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    std::ifstream dds(dir / "brick.dds", std::ios::binary);
    std::string header(148, '\0');
    dds.read(header.data(), 148);
    CHECK(header.substr(84, 4) == "DX10");
    CHECK(std::uint8_t(header[128]) == 72);

    const std::string normal = (dir / "normal.ktex").string();
    r = test::run_process({KILN_CLI, "texture", "extract", (dir / "bc").string(), "textures/brick_normal.png", normal});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    for (const char* out : {"normal.png", "normal.dds"}) {
      r = test::run_process({KILN_CLI, "texture", "export", normal, "--level", "1", (dir / out).string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    }
    const textures::Image decoded = test::oiio_read_level(dir / "normal.png", 0);
    const textures::Image oracle = test::oiio_read_level(dir / "normal.dds", 1);  // x, y: read as gray and alpha
    REQUIRE(decoded.width == oracle.width);
    int worst = 0;
    for (std::size_t p = 0; p < decoded.pixels.size(); p += 4) {
      worst = std::max(worst, std::abs(int(decoded.pixels[p]) - int(oracle.pixels[p])));
      worst = std::max(worst, std::abs(int(decoded.pixels[p + 1]) - int(oracle.pixels[p + 3])));
      CHECK(decoded.pixels[p + 2] == 0);  // z is the shader's to rebuild
    }
    CHECK(worst <= 1);  // BC5's interpolation, rounded either way

    auto rgba_frame = textures::read_image(dir / "rgba-frame" / "frame.png");
    auto bc_frame = textures::read_image(dir / "bc-frame" / "frame.png");
    REQUIRE(rgba_frame);
    REQUIRE(bc_frame);
    const double db = psnr(*rgba_frame, *bc_frame);
    MESSAGE("BC frame against the RGBA8 frame: " << db << " dB");
    CHECK(db >= 30.0);
  }

  TEST_CASE("an ASTC set on a device without ASTC is refused naming the format - or decoded when allowed") {
    if (test::lavapipe_icd().empty()) return;
    test::TempDir dir("astc-textures");
    const auto report = cook(dir, project_shipping(dir, "astc"), dir / "astc");
    CHECK(report["textures"]["formats"]["astc6x6"] == 6);
    auto env = test::lavapipe_env();
    const std::vector<std::string> play = {
        KILN_PLAYER,    (dir / "astc").string(),        "--frames", "1", "--require-gpu",
        "--cache-root", (dir / "player-cache").string()};
    auto refused = test::run_process(play, env);
    CHECK(refused.exit_code == 1);
    CHECK_MESSAGE(refused.output.find("astc6x6 is not a format llvmpipe") != std::string::npos, refused.output);
    CHECK(refused.output.find("render.decode_textures") != std::string::npos);
    env["KILN_RENDER_DECODE_TEXTURES"] = "on";
    auto decoded = test::run_process(play, env);
    REQUIRE_MESSAGE(decoded.exit_code == 0, decoded.output);
    CHECK_MESSAGE(decoded.output.find("6 astc6x6; 6 textures decoded to RGBA8") != std::string::npos, decoded.output);

    // An ASTC level as an .astc file decodes with the astcenc tool as Kiln decodes it.
    const std::string ktex = (dir / "sky.ktex").string();
    auto r = test::run_process({KILN_CLI, "texture", "extract", (dir / "astc").string(), "textures/sky.png", ktex});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    for (const char* out : {"sky.png", "sky.astc"}) {
      r = test::run_process({KILN_CLI, "texture", "export", ktex, "--level", "2", (dir / out).string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    }
    r = test::run_process({"/usr/bin/astcenc", "-ds", (dir / "sky.astc").string(), (dir / "astcenc.png").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    auto ours = textures::read_image(dir / "sky.png");
    auto theirs = textures::read_image(dir / "astcenc.png");
    REQUIRE(ours);
    REQUIRE(theirs);
    CHECK(textures::to_rgba(*ours).pixels == textures::to_rgba(*theirs).pixels);
    r = test::run_process({KILN_CLI, "texture", "export", ktex, (dir / "sky.dds").string()});
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("DDS holds BC formats, not astc6x6") != std::string::npos);
  }
}
