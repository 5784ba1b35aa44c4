// `kiln-tools`: the commands of `kiln` that build (cache, cook, editor, probe, shader, texture),
// which `kiln` runs in its place (main.cpp); run directly with a command of kiln's own (script,
// version, info, config), it hands it back. This file only dispatches; command_line.h parses.

#include <cstdio>
#include <string>

#include "kiln/texture_import/texture_import.h"
#include "cache_commands.h"
#include "shader_commands.h"
#include "texture_commands.h"

namespace kiln::cli {
int run_cook_command(const Args& args);
int run_editor_command(const Args& args);
}  // namespace kiln::cli
#include "cli_args.h"
#include "command_line.h"
#include "hand_over.h"
#include "kiln/core/config.h"

int main(int argc, char** argv) {
  using namespace kiln;
  const bool handed_in = cli::take_hand_over_mark();
  texture_import::register_source_reader();  // JPEG, TGA, EXR, HDR, PSD, ... sources
  auto parsed = cli::parse_command_line(argc, argv);
  if (!parsed.args) return parsed.exit_code;
  const cli::Args& args = *parsed.args;
  const std::string command = args.words[0];
  if (cli::runs_in_kiln(command)) return cli::hand_over("kiln", command, argv, handed_in);
  if (command == "probe") return cli::run_probe_command(args);
  if (command == "texture") return cli::run_texture_command(args);
  if (command == "cook") return cli::run_cook_command(args);
  if (command == "editor") return cli::run_editor_command(args);
  auto config = load_config(args.config);
  if (!config) {
    std::fprintf(stderr, "kiln: %s\n", config.error().message.c_str());
    return cli::kExitUsage;
  }
  if (command == "cache") return cli::run_cache_command(args, *config);
  if (command == "shader") return cli::run_shader_command(args, *config);
  std::fprintf(stderr, "kiln: unknown command '%s' (see kiln --help)\n", command.c_str());
  return cli::kExitUsage;
}
