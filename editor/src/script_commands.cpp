#include "script_commands.h"

#include <cstdio>

#include "kiln/jit/script.h"
#include "kiln/jit/vm.h"

namespace kiln::cli {

int run_script_command(const Args& args) {
  const std::string verb = args.words.size() > 1 ? args.words[1] : "";
  if ((verb != "run" && verb != "disasm") || args.words.size() != 3) {
    std::fprintf(stderr, "usage: kiln script run|disasm <file.lua> [--budget N]\n");
    return kExitUsage;
  }
  if (auto s = args.check_options({"--budget"}); !s) {
    std::fprintf(stderr, "kiln script: %s\n", s.error().message.c_str());
    return kExitUsage;
  }
  auto program = jit::compile_script_file(args.words[2]);
  if (!program) {
    std::fprintf(stderr, "%s\n", program.error().message.c_str());
    return kExitFailed;
  }
  if (verb == "disasm") {
    std::fputs(jit::disassemble(*program).c_str(), stdout);
    return kExitOk;
  }
  jit::VmOptions options;
  options.instruction_budget = std::strtoull(args.option("--budget", "0").c_str(), nullptr, 10);
  jit::Vm vm(*program, options);
  if (auto s = vm.run(); !s) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", s.error().message.c_str());
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace kiln::cli
