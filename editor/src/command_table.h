#pragma once
// Every `kiln` command, declared once: its words, its help, operands, options and switches, an
// example, and what runs it. The command line (command_line.cpp) is built from this table and
// `kiln` runs what it names; nothing else lists the commands.
//
// What runs a command: `kiln` itself for scripts and settings (a script run maps none of the
// libraries that build), the tools plugin (kiln-tools.so, beside kiln, loaded on demand as the
// script compiler is) for the commands that build: cache, cook, editor, key, probe, set, shader,
// texture, usage.
//
// Thread-safety: constant tables.

#include <string>
#include <vector>

#include "cli_args.h"

namespace kiln::cli {

// One command or subcommand: its words, its operands, its options.
struct Operand {
  const char* name;
  const char* help;
  bool many = false;  // one or more values (the last operand only)
};
struct ValueOption {
  const char* flag;  // "--pass" or "-I,--include"
  const char* help;
  bool repeatable = false;
  enum Check { kAny, kCount, kWhole } check = kAny;  // kCount: 0, 1, 2, ...; kWhole: 1, 2, 3, ...
};
struct Switch {
  const char* flag;
  const char* help;
};
struct Command {
  std::vector<const char*> path;  // {"shader", "compile"}
  const char* help;
  std::vector<Operand> operands;
  std::vector<ValueOption> options;
  std::vector<Switch> switches;
  const char* example;
  // Runs in kiln: the function; else the tools plugin's entry point of this name (tools_plugin.cpp).
  int (*run_in_kiln)(const Args&) = nullptr;
  const char* tools_entry = nullptr;
};

// A word that only groups subcommands ("cache", "shader"): its help; `listed` false keeps it out of
// `kiln --help` (it still runs).
struct CommandGroup {
  const char* name;
  const char* help;
  bool listed = true;
};

const std::vector<Command>& command_table();
const std::vector<CommandGroup>& command_groups();

// The command `words` (the path a parse put first) names; nullptr for none.
const Command* find_command(const std::vector<std::string>& words);

// The commands kiln runs itself.
int run_script_command(const Args& args);
int run_settings_command(const Args& args);  // info, version, config

}  // namespace kiln::cli
