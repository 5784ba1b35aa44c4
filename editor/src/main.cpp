// `kiln`: the command of editors, build machines and tools. This file only dispatches to the
// subcommands (cache, config, cook, editor, probe, script, shader, texture).

#include <cstdio>
#include <string>

#include "cache_commands.h"
#include "script_commands.h"
#include "shader_commands.h"
#include "texture_commands.h"

namespace kiln::cli {
int run_cook_command(const Args& args);
int run_editor_command(const Args& args);
}  // namespace kiln::cli
#include "cli_args.h"
#include "kiln/core/config.h"

namespace {

using namespace kiln;

void print_help() {
  std::printf(
      "usage: kiln <command> [options]\n"
      "\n"
      "commands:\n"
      "  info            version and the resolved configuration\n"
      "  version         version only\n"
      "  config          the resolved configuration, each value with where it came from\n"
      "  cache stats     entries and bytes of each persistent cache (shaders, jit, textures)\n"
      "  cache verify    check every cached entry, deleting corrupt ones\n"
      "  cache prune     apply the size cap and the build limit to every kind at once\n"
      "  cache clear     remove every entry [--kind K] that no running tool uses\n"
      "  shader compile <shader> [--keywords A,B] [--pass P] [-D NAME[=VALUE]]... [-I dir]...\n"
      "                 [--target-env vulkan1.0..1.3] [--backend spirv|glsl|essl|hlsl|msl] [-o out]\n"
      "                  one variant of every stage, through the variant cache and its persistent\n"
      "                  level; the first declared pass unless --pass; -o: one file per stage\n"
      "  shader reflect <shader> [same options]   every stage's reflection (--json: the stored JSON)\n"
      "  probe variants  the variant cache's regression checks on a live cache\n"
      "  script run <file.lua> [--budget N]   run a script in the interpreter\n"
      "  script disasm <file.lua>             its bytecode, page by page\n"
      "  editor <project> [--json] [--stdin]   watch the project: rebuild what an edit changes, one line per\n"
      "                  event, until SIGINT/SIGTERM (--stdin: commands status, quit on standard input)\n"
      "  cook <project> --out <dir> [--jobs N] [--report report.json] [--json] [--verify]\n"
      "                  validate the project, build its variants, scripts (AOT) and textures into packs\n"
      "  texture info <file.tx> [--json]      levels, tile grids, format, wrap modes and maketx metadata\n"
      "  texture export <texture> --level N <out.png>   one mip level as an RGBA PNG, through the tiles\n"
      "  texture thumb <texture> --size S <out.png>     a thumbnail from the smallest level that fits\n"
      "\n"
      "options:\n"
      "  --config PATH   project config file (default: KILN_CONFIG, else ./kiln.json if present)\n"
      "  --json          machine-readable output\n");
  for (const SettingInfo& s : config_settings())
    std::printf("  %-22s %s [%s; env %s; default %s]\n", (s.flag + " V").c_str(), s.help.c_str(), s.type.c_str(),
                s.env.c_str(), s.default_text.c_str());
}

std::string version_line() { return std::string("kiln ") + KILN_VERSION + " (" + KILN_BUILD_TYPE + ")"; }

}  // namespace

int main(int argc, char** argv) {
  auto args = cli::parse_args(argc, argv);
  if (!args) {
    std::fprintf(stderr, "kiln: %s\n", args.error().message.c_str());
    return cli::kExitUsage;
  }
  if (args->help) {
    print_help();
    return cli::kExitOk;
  }
  const std::string command = args->words.empty() ? "info" : args->words[0];
  if (command == "probe") return cli::run_probe_command(*args);
  if (command == "script") return cli::run_script_command(*args);
  if (command == "texture") return cli::run_texture_command(*args);
  if (command == "cook") return cli::run_cook_command(*args);
  if (command == "editor") return cli::run_editor_command(*args);
  if (command != "shader" && command != "cache") {  // these check their own options
    if (auto s = args->check_options({}); !s) {
      std::fprintf(stderr, "kiln: %s\n", s.error().message.c_str());
      return cli::kExitUsage;
    }
  }
  if (command == "version") {
    std::printf("%s\n", version_line().c_str());
    return cli::kExitOk;
  }
  auto config = load_config(args->config);
  if (!config) {
    std::fprintf(stderr, "kiln: %s\n", config.error().message.c_str());
    return cli::kExitUsage;
  }
  if (command == "info" || command == "config") {
    if (command == "info" && !args->json) std::printf("%s\n", version_line().c_str());
    std::printf("%s", format_config(*config, args->json).c_str());
    return cli::kExitOk;
  }
  if (command == "cache") return cli::run_cache_command(*args, *config);
  if (command == "shader") return cli::run_shader_command(*args, *config);
  std::fprintf(stderr, "kiln: unknown command '%s' (see kiln --help)\n", command.c_str());
  return cli::kExitUsage;
}
