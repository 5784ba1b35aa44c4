#pragma once
// The tools plugin (kiln-tools.so): the commands that build, loaded by `kiln` on demand so that a
// script run or a settings command maps none of their libraries (the shader compilers, the Vulkan
// loader, the image and network libraries). The plugin exports KILN_TOOLS_BUILD_ID_SYMBOL and one
// entry point per `tools_entry` of the command table.

#include "cli_args.h"

namespace kiln::cli {

inline constexpr const char* kToolsPluginName = "kiln-tools.so";
inline constexpr const char* kToolsBuildIdSymbol = "kiln_tools_build_id";

// What each entry point is: the parsed command line in, the exit code out.
using ToolsEntry = int (*)(const Args&);
using ToolsBuildId = const char* (*)();

struct Command;
// Runs `command` (one whose tools_entry is set) in the tools plugin beside this program. A plugin
// that is missing, refused, not Kiln's or built from another tree is said on standard error
// naming the command (exit 1).
int run_in_tools(const Command& command, const Args& args);

}  // namespace kiln::cli
