// `kiln info`, `kiln version`, `kiln config`: the version and the resolved configuration.

#include <cstdio>

#include "command_line.h"
#include "command_table.h"
#include "kiln/core/config.h"

namespace kiln::cli {

int run_settings_command(const Args& args) {
  if (args.words[0] == "version") {
    if (args.json)
      std::printf("{\"version\": \"%s\", \"build_type\": \"%s\"}\n", KILN_VERSION, KILN_BUILD_TYPE);
    else
      std::printf("%s\n", version_line().c_str());
    return kExitOk;
  }
  auto config = load_config(args.config);
  if (!config) {
    std::fprintf(stderr, "kiln: %s\n", config.error().message.c_str());
    return kExitUsage;
  }
  if (args.words[0] == "info" && !args.json) std::printf("%s\n", version_line().c_str());
  std::printf("%s", format_config(*config, args.json).c_str());
  return kExitOk;
}

}  // namespace kiln::cli
