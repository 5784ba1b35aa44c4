#pragma once
// The table the OpenImageIO oracle plugin (kiln-test-oiio.so) hands the test binary. OIIO pulls in some
// 250 shared libraries; linked into the tests, every test process (one per case) would spend most of a
// second binding their symbols at start. The tests open the plugin on their first oracle call instead.
// Host and plugin come from one build, so the table passes standard library types.

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::test {

struct OiioPixels {
  int width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> u8;  // when read as 8 bits
  std::vector<float> f32;        // when read as floats
};

struct OiioPluginApi {
  // Mip level `level` of an image file, every channel, alpha as stored. "" on success, else OIIO's error.
  std::string (*read_level)(const std::string& path, int level, bool as_float, OiioPixels& out);
  // A TextureSystem with a cache of `budget_mb`; never destroyed (see the plugin).
  void* (*create_texture_system)(float budget_mb);
  // One filtered lookup: st_and_derivatives = s, t, dsdx, dtdx, dsdy, dtdy; wrap as OIIO names it, or
  // "s,t" with one per axis. "" on success, else OIIO's error.
  std::string (*texture)(void* system, const std::string& path, bool trilinear, const std::string& wrap,
                         const float (&st_and_derivatives)[6], float (&rgba)[4]);
};

}  // namespace kiln::test

extern "C" const kiln::test::OiioPluginApi* kiln_test_oiio_api();
