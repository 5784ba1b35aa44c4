// `kiln`: the command of editors, build machines and tools. Every command is a row of the command
// table (command_table.h): scripts and the settings commands run in this process; the commands
// that build run in the tools plugin (kiln-tools.so), loaded on demand, so that a script run
// starts without mapping the shader compilers, the Vulkan loader or the image libraries (a third
// of a one-line script's start-up time was theirs).

#include <cstdio>

#include "command_line.h"
#include "command_table.h"
#include "tools_plugin.h"

int main(int argc, char** argv) {
  using namespace kiln;
  auto parsed = cli::parse_command_line(argc, argv);
  if (!parsed.args) return parsed.exit_code;
  const cli::Args& args = *parsed.args;
  const cli::Command* command = cli::find_command(args.words);
  if (!command) {  // the parser accepts only the table's commands
    std::fprintf(stderr, "kiln: unknown command '%s' (see kiln --help)\n", args.words[0].c_str());
    return cli::kExitUsage;
  }
  if (command->run_in_kiln) return command->run_in_kiln(args);
  return cli::run_in_tools(*command, args);
}
