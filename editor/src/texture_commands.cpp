#include "texture_commands.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "kiln/textures/tx_file.h"

namespace kiln::cli {

int run_texture_command(const Args& args) {
  const std::string verb = args.words.size() > 1 ? args.words[1] : "";
  if (verb != "info" || args.words.size() != 3) {
    std::fprintf(stderr, "usage: kiln texture info <file.tx> [--json]\n");
    return kExitUsage;
  }
  if (auto s = args.check_options({}); !s) {
    std::fprintf(stderr, "kiln texture: %s\n", s.error().message.c_str());
    return kExitUsage;
  }
  auto file = textures::TxFile::open(args.words[2]);
  if (!file) {
    std::fprintf(stderr, "%s\n", file.error().message.c_str());
    return kExitFailed;
  }
  const textures::TxInfo& info = (*file)->info();
  const std::string format = std::to_string(info.bits_per_sample) + "-bit " + (info.is_float ? "float" : "uint");
  if (args.json) {
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& l : info.levels)
      levels.push_back({{"width", l.width}, {"height", l.height}, {"tile_width", l.tile_width},
                        {"tile_height", l.tile_height}, {"tiles_x", l.tiles_x()}, {"tiles_y", l.tiles_y()}});
    nlohmann::json out = {{"file", args.words[2]}, {"channels", info.channels}, {"format", format}, {"levels", levels},
                          {"sha1", info.sha1}};
    if (info.average_color) out["average_color"] = *info.average_color;
    if (info.constant_color) out["constant_color"] = *info.constant_color;
    std::printf("%s\n", out.dump().c_str());
    return kExitOk;
  }
  std::printf("%s: %ux%u, %d channels, %s, %zu levels\n", args.words[2].c_str(), info.levels[0].width,
              info.levels[0].height, info.channels, format.c_str(), info.levels.size());
  for (std::size_t i = 0; i < info.levels.size(); ++i) {
    const auto& l = info.levels[i];
    std::printf("  level %zu: %ux%u, tiles %ux%u of %ux%u\n", i, l.width, l.height, l.tiles_x(), l.tiles_y(),
                l.tile_width, l.tile_height);
  }
  if (info.average_color)
    std::printf("  average colour %.4g %.4g %.4g %.4g\n", (*info.average_color)[0], (*info.average_color)[1],
                (*info.average_color)[2], (*info.average_color)[3]);
  if (info.constant_color) std::printf("  constant colour: one tile is the whole texture\n");
  return kExitOk;
}

}  // namespace kiln::cli
