#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "child_process.h"
#include "oiio_oracle.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/textures/tx_file.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

void put_be(std::string& out, std::uint32_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out += char((value >> (8 * i)) & 0xFF);
}

// A flat Photoshop file, as Photoshop saves one with "maximize compatibility" and no layers: the
// header, empty colour-mode, resource and layer sections, then the merged image as raw planes.
// (Nothing on this machine writes PSD; OpenImageIO reads it, and is the oracle.)
std::string psd_rgb(int width, int height) {
  std::string out = "8BPS";
  put_be(out, 1, 2);  // version
  out += std::string(6, '\0');
  put_be(out, 3, 2);  // channels
  put_be(out, std::uint32_t(height), 4);
  put_be(out, std::uint32_t(width), 4);
  put_be(out, 8, 2);  // bits per channel
  put_be(out, 3, 2);  // RGB
  for (int section = 0; section < 3; ++section) put_be(out, 0, 4);
  put_be(out, 0, 2);  // raw image data
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) out += char((x * 7 + y * 3 + c * 80) & 0xFF);
  return out;
}

}  // namespace

TEST_SUITE("textures") {
  TEST_CASE("kiln texture export reads the source formats artists use - as oiiotool reads them") {
    test::TempDir dir("sources");
    struct Source {
      const char* name;
      int channels;
      const char* type;
    };
    // Alpha kept high: a source's alpha is stored premultiplied in 8 bits, and un-premultiplying it
    // for the export costs up to half a step / alpha.
    const Source sources[] = {{"photo.jpg", 3, "uint8"}, {"decal.tga", 4, "uint8"}, {"paint.bmp", 3, "uint8"},
                              {"sky.exr", 4, "half"},    {"probe.hdr", 3, "float"}, {"gray.tga", 1, "uint8"}};
    for (const Source& s : sources) {
      const std::string name = s.name;
      CAPTURE(name);
      const fs::path source = dir / s.name;
      const std::string pattern = s.channels == 1 ? "fill:top=0.2:bottom=0.9"
                                  : s.channels == 3
                                      ? "fill:topleft=0.1,0.9,0.2:topright=0.9,0.1,0.5:bottomleft=0.3,"
                                        "0.3,0.9:bottomright=1,1,0"
                                      : "fill:topleft=0.1,0.9,0.2,1:topright=0.9,0.1,0.5,0.8:bottomleft=0.3,"
                                        "0.3,0.9,0.9:bottomright=1,1,0,0.85";
      auto r = test::run_process({"/usr/bin/oiiotool", "--pattern", pattern, "37x23", std::to_string(s.channels), "-d",
                                  s.type, "-o", source.string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      r = test::run_process({KILN_CLI, "texture", "export", source.string(), "--level", "0",
                             (dir / "kiln.png").string(), "--cache-root", (dir / "cache").string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      r = test::run_process({"/usr/bin/oiiotool", source.string(), "-d", "uint8", "-o", (dir / "oiio.png").string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      CHECK(test::max_difference_255(test::oiio_read_rgba(dir / "kiln.png"), test::oiio_read_rgba(dir / "oiio.png")) <=
            2.001f);
    }
    // Photoshop: a flat PSD written by hand.
    test::spit(dir / "layout.psd", psd_rgb(37, 23));
    auto psd = test::run_process({KILN_CLI, "texture", "export", (dir / "layout.psd").string(), "--level", "0",
                                  (dir / "kiln.png").string(), "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(psd.exit_code == 0, psd.output);
    psd = test::run_process(
        {"/usr/bin/oiiotool", (dir / "layout.psd").string(), "-d", "uint8", "-o", (dir / "oiio.png").string()});
    REQUIRE_MESSAGE(psd.exit_code == 0, psd.output);
    const test::FloatPixels oracle = test::oiio_read_rgba(dir / "oiio.png");
    CHECK(oracle.rgba[4 * (5 * 37 + 9) + 1] * 255.0f ==
          doctest::Approx((9 * 7 + 5 * 3 + 80) & 0xFF));  // read as written
    CHECK(test::max_difference_255(test::oiio_read_rgba(dir / "kiln.png"), oracle) <= 0.001f);

    // A file that is no image: named, with the reader's reason.
    std::ofstream(dir / "broken.jpg") << "\xff\xd8\xff not really a jpeg";
    auto r = test::run_process({KILN_CLI, "texture", "export", (dir / "broken.jpg").string(), "--level", "0",
                                (dir / "x.png").string(), "--cache-root", (dir / "cache").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find((dir / "broken.jpg").string() + ": ") != std::string::npos, r.output);
    CHECK_FALSE(fs::exists(dir / "x.png"));
  }

  TEST_CASE("a material's JPEG texture is cooked into the pack like a PNG") {
    test::TempDir dir("sources-cook");
    const fs::path project = test::copy_assets(dir);
    auto r = test::run_process({"/usr/bin/oiiotool", (project / "textures/brick.png").string(), "-o",
                                (project / "textures/brick.jpg").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::string material = test::slurp(project / "materials/brick.json");
    std::ofstream(project / "materials/brick.json", std::ios::trunc)
        << std::string(material).replace(material.find("textures/brick.png"), 18, "textures/brick.jpg");
    r = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root",
                           (dir / "cache").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE_MESSAGE(set, set.error().message);
    auto bytes = (*set)->texture("textures/brick.jpg");
    REQUIRE_MESSAGE(bytes, bytes.error().message);
    auto tx = textures::TxFile::open_memory("brick.jpg", *bytes);
    REQUIRE_MESSAGE(tx, tx.error().message);
    CHECK((*tx)->info().color_space == "sRGB");  // a JPEG declares sRGB
    CHECK((*tx)->info().levels.size() > 1);
  }

  TEST_CASE("the tools open OpenImageIO when a source needs it - the player never links it") {
    const fs::path plugin = fs::path(KILN_CLI).parent_path() / "kiln-teximport.so";
    const auto importer = test::run_process({"/usr/bin/ldd", plugin.string()});
    CHECK_MESSAGE(importer.output.find("libOpenImageIO") != std::string::npos, importer.output);
    const fs::path tools = fs::path(KILN_CLI).parent_path() / "kiln-tools.so";
    for (const std::string& program : {std::string(KILN_CLI), tools.string(), std::string(KILN_PLAYER)}) {
      const auto linked = test::run_process({"/usr/bin/ldd", program});
      REQUIRE(linked.exit_code == 0);
      CHECK_MESSAGE(linked.output.find("libOpenImageIO") == std::string::npos, linked.output);
    }

    // The dynamic loader's own account of what it maps: the plugin for a JPEG, not for a PNG.
    test::TempDir dir("sources-plugin");
    auto r = test::run_process(
        {"/usr/bin/oiiotool", "--pattern", "fill:color=0.2,0.5,0.8", "16x16", "3", "-o", (dir / "photo.jpg").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    r = test::run_process({"/usr/bin/oiiotool", (dir / "photo.jpg").string(), "-o", (dir / "photo.png").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::map<std::string, std::string> loader = {{"LD_DEBUG", "files"}};
    // Each run with a cache of its own: a cached conversion would read no source.
    int runs = 0;
    auto export_level = [&](const std::string& program, const std::string& source,
                            const std::map<std::string, std::string>& env) {
      const fs::path cache = dir / ("cache" + std::to_string(++runs));
      return test::run_process({program, "texture", "export", (dir / source).string(), "--level", "0",
                                (dir / "out.png").string(), "--cache-root", cache.string()},
                               env);
    };
    r = export_level(KILN_CLI, "photo.png", loader);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("kiln-teximport") == std::string::npos);
    CHECK(r.output.find("file=libOpenImageIO") == std::string::npos);
    r = export_level(KILN_CLI, "photo.jpg", loader);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("kiln-teximport") != std::string::npos);
    CHECK(r.output.find("file=libOpenImageIO") != std::string::npos);

    // A tool without its plugin reads PNG and TIFF, and says what is missing for the rest.
    const fs::path alone = dir / "bin" / "kiln";
    fs::create_directories(alone.parent_path());
    fs::copy_file(KILN_CLI, alone);
    fs::copy_file(tools, alone.parent_path() / "kiln-tools.so");
    fs::permissions(alone, fs::perms::owner_all);
    r = export_level(alone.string(), "photo.png", {});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    r = export_level(alone.string(), "photo.jpg", {});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find((dir / "photo.jpg").string() +
                                ": cannot read as an image: the image importer (kiln-teximport.so) is not installed "
                                "beside this program") != std::string::npos,
                  r.output);
    // A library that is not the importer is refused by name.
    fs::copy_file(fs::path(KILN_CLI).parent_path() / "kiln-jitc.so", alone.parent_path() / "kiln-teximport.so");
    r = export_level(alone.string(), "photo.jpg", {});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find("kiln-teximport.so: not this Kiln's image importer") != std::string::npos, r.output);
  }
}
