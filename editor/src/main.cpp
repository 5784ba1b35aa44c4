// `kiln`: the command of editors, build machines and tools. Scripts and the settings commands
// (script, version, info, config) run in this process. The commands that build (cache, cook,
// editor, probe, shader, texture) run in kiln-tools beside it, which replaces this process: the
// same pid, arguments, environment and descriptors, so exit codes and signals are its own. A
// script run thus starts without loading the shader compilers, the Vulkan loader or the image
// libraries (a third of a one-line script's start-up time was theirs).

#include <cstdio>
#include <string>

#include "cli_args.h"
#include "command_line.h"
#include "hand_over.h"
#include "kiln/core/config.h"
#include "script_commands.h"

int main(int argc, char** argv) {
  using namespace kiln;
  const bool handed_in = cli::take_hand_over_mark();
  auto parsed = cli::parse_command_line(argc, argv);
  if (!parsed.args) return parsed.exit_code;
  const cli::Args& args = *parsed.args;
  const std::string command = args.words[0];
  if (!cli::runs_in_kiln(command)) return cli::hand_over("kiln-tools", command, argv, handed_in);
  if (command == "script") return cli::run_script_command(args);
  if (command == "version") {
    if (args.json)
      std::printf("{\"version\": \"%s\", \"build_type\": \"%s\"}\n", KILN_VERSION, KILN_BUILD_TYPE);
    else
      std::printf("%s\n", cli::version_line().c_str());
    return cli::kExitOk;
  }
  auto config = load_config(args.config);
  if (!config) {
    std::fprintf(stderr, "kiln: %s\n", config.error().message.c_str());
    return cli::kExitUsage;
  }
  if (command == "info" && !args.json) std::printf("%s\n", cli::version_line().c_str());
  std::printf("%s", format_config(*config, args.json).c_str());
  return cli::kExitOk;
}
