#include <cstdio>
#include <string>

#include "command_table.h"
#include "kiln/core/program_files.h"
#include "kiln/core/runtime_library.h"
#include "tools_plugin.h"

namespace kiln::cli {
namespace {

Result<ToolsEntry> tools_entry(const char* name) {
  // Opened once: the plugin stays loaded for the process.
  static const Result<Plugin> plugin =
      Plugin::open(find_program_file(kToolsPluginName), kToolsPluginName, "tools plugin");
  if (!plugin) return plugin.error();
  auto build_id = plugin->entry(kToolsBuildIdSymbol);
  if (!build_id) return build_id.error();
  if (std::string(reinterpret_cast<ToolsBuildId>(*build_id)()) != KILN_TOOLS_BUILD_ID)
    return make_error(find_program_file(kToolsPluginName).string() +
                      ": a tools plugin built from another Kiln than this program: install the two together");
  auto entry = plugin->entry(name);
  if (!entry) return entry.error();
  return reinterpret_cast<ToolsEntry>(*entry);
}

}  // namespace

int run_in_tools(const Command& command, const Args& args) {
  auto entry = tools_entry(command.tools_entry);
  if (!entry) {
    std::string words;
    for (const char* w : command.path) words += (words.empty() ? "" : " ") + std::string(w);
    std::fprintf(stderr, "kiln %s: %s\n", words.c_str(), entry.error().message.c_str());
    return kExitFailed;
  }
  return (*entry)(args);
}

}  // namespace kiln::cli
