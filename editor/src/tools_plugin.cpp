// kiln-tools.so's entry points: one per `tools_entry` of the command table (command_table.cpp),
// each the command's runner with what every tool needs first.

#include <cstdio>

#include "cache_commands.h"
#include "kiln/core/config.h"
#include "kiln/texture_import/texture_import.h"
#include "shader_commands.h"
#include "texture_commands.h"
#include "tools_plugin.h"
#include "trust_commands.h"
#include "usage_commands.h"

namespace kiln::cli {
int run_cook_command(const Args& args);
int run_editor_command(const Args& args);
}  // namespace kiln::cli

namespace {

using kiln::cli::Args;

int run(const Args& args, int (*command)(const Args&)) {
  kiln::texture_import::register_source_reader();  // JPEG, TGA, EXR, HDR, PSD, ... sources
  return command(args);
}

int run_configured(const Args& args, int (*command)(const Args&, const kiln::LoadedConfig&)) {
  auto config = kiln::load_config(args.config);
  if (!config) {
    std::fprintf(stderr, "kiln: %s\n", config.error().message.c_str());
    return kiln::cli::kExitUsage;
  }
  kiln::texture_import::register_source_reader();
  return command(args, *config);
}

}  // namespace

#define KILN_TOOLS_EXPORT extern "C" __attribute__((visibility("default")))

KILN_TOOLS_EXPORT const char* kiln_tools_build_id() { return KILN_TOOLS_BUILD_ID; }
KILN_TOOLS_EXPORT int kiln_tools_cache(const Args& args) { return run_configured(args, kiln::cli::run_cache_command); }
KILN_TOOLS_EXPORT int kiln_tools_shader(const Args& args) {
  return run_configured(args, kiln::cli::run_shader_command);
}
KILN_TOOLS_EXPORT int kiln_tools_probe(const Args& args) { return run(args, kiln::cli::run_probe_command); }
KILN_TOOLS_EXPORT int kiln_tools_cook(const Args& args) { return run(args, kiln::cli::run_cook_command); }
KILN_TOOLS_EXPORT int kiln_tools_editor(const Args& args) { return run(args, kiln::cli::run_editor_command); }
KILN_TOOLS_EXPORT int kiln_tools_key(const Args& args) { return run_configured(args, kiln::cli::run_key_command); }
KILN_TOOLS_EXPORT int kiln_tools_set(const Args& args) { return run_configured(args, kiln::cli::run_set_command); }
KILN_TOOLS_EXPORT int kiln_tools_usage(const Args& args) { return run(args, kiln::cli::run_usage_command); }
KILN_TOOLS_EXPORT int kiln_tools_texture(const Args& args) { return run(args, kiln::cli::run_texture_command); }
