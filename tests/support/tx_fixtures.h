#pragma once
// .tx files for texture tests, made by the real tools (oiiotool, maketx).

#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "temp_dir.h"

namespace kiln::test {

// An oiiotool --pattern: a four-corner gradient with `channels` components.
inline std::string gradient_pattern(int channels) {
  static const char* corners[] = {"topleft=0.1,0.9,0.2,1", "topright=0.9,0.1,0.5,0.2", "bottomleft=0.3,0.3,0.9,0.6",
                                  "bottomright=1,1,0,0.9"};
  std::string pattern = "fill";
  for (const char* c : corners) {
    std::string corner = c;
    std::string head = corner.substr(0, corner.find('=') + 1), values = corner.substr(corner.find('=') + 1), kept;
    std::stringstream in(values);
    int n = 0;
    for (std::string v; n < channels && std::getline(in, v, ','); ++n) kept += (n ? "," : "") + v;
    pattern += ":" + head + kept;
  }
  return pattern;
}

// A gradient source image made by oiiotool, turned into a .tx by maketx: real files from the tools
// the engine's artists use.
inline std::filesystem::path make_tx(const TempDir& dir, const std::string& name, int w, int h, int channels,
                                     const std::vector<std::string>& maketx_args = {},
                                     const std::string& type = "uint8") {
  const std::string pattern = gradient_pattern(channels);
  const std::filesystem::path src = dir / (name + ".tif"), tx = dir / (name + ".tx");
  auto made = run_process({"/usr/bin/oiiotool", "--pattern", pattern, std::to_string(w) + "x" + std::to_string(h),
                           std::to_string(channels), "-d", type, "-o", src.string()});
  REQUIRE_MESSAGE(made.exit_code == 0, made.output);
  std::vector<std::string> argv = {"/usr/bin/maketx", src.string(), "-o", tx.string()};
  argv.insert(argv.end(), maketx_args.begin(), maketx_args.end());
  auto converted = run_process(argv);
  REQUIRE_MESSAGE(converted.exit_code == 0, converted.output);
  return tx;
}

}  // namespace kiln::test
