#include "script_commands.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "kiln/core/text.h"
#include "kiln/lang/script.h"
#include "kiln/jit/vm.h"
#include "kiln/project/project_reader.h"
#include "persistent_caches.h"
#include "script_runtime.h"
#include "script_host.h"

namespace kiln::cli {
namespace {

constexpr const char* kUsage =
    "usage: kiln script run <file.lua> [--budget N] [--jit on|off] [--mode checked|unchecked] [--stats] [--json]\n"
    "       kiln script disasm <file.lua>\n";

nlohmann::json stats_json(const jit::JitStats& s) {
  return {{"pages_hot", s.requested},
          {"pages_interpreted", s.interpreted},
          {"pages_compiled", s.compiled},
          {"pages_loaded", s.loaded},
          {"compare_rejected", s.compare_rejected},
          {"mac_rejected", s.mac_rejected},
          {"corrupt", s.corrupt},
          {"not_cacheable", s.not_cacheable},
          {"compile_failed", s.compile_failed},
          {"stored", s.stored},
          {"verify_mismatches", s.verify_mismatches},
          {"compile_ms", double(s.compile_ns) / 1e6},
          {"load_ms", double(s.load_ns) / 1e6}};
}

}  // namespace

int run_script_command(const Args& args) {
  namespace fs = std::filesystem;
  const std::string verb = args.words.size() > 1 ? args.words[1] : "";
  if ((verb != "run" && verb != "disasm") || args.words.size() != 3) {
    std::fprintf(stderr, "%s", kUsage);
    return kExitUsage;
  }
  if (auto s = args.check_options({"--budget", "--jit", "--mode"}); !s) {
    std::fprintf(stderr, "kiln script: %s\n", s.error().message.c_str());
    return kExitUsage;
  }
  const std::string jit_switch = args.option("--jit", "on"), mode = args.option("--mode", "checked");
  if ((jit_switch != "on" && jit_switch != "off") || (mode != "checked" && mode != "unchecked")) {
    std::fprintf(stderr, "%s", kUsage);
    return kExitUsage;
  }
  // A script of a project may call the engine's functions for its materials' parameters.
  const fs::path project = project_of_script(args.words[2]);
  const auto signatures = project.empty() ? std::vector<jit::HostSignature>{}
                                          : project::host_signatures(project_parameter_functions(project));
  auto program = lang::compile_script_file(args.words[2], signatures);
  if (!program) {
    std::fprintf(stderr, "%s\n", program.error().message.c_str());
    return kExitFailed;
  }
  if (verb == "disasm") {
    std::fputs(jit::disassemble(*program).c_str(), stdout);
    return kExitOk;
  }
  auto config = load_config(args.config);
  if (!config) {
    std::fprintf(stderr, "kiln: %s\n", config.error().message.c_str());
    return kExitUsage;
  }
  const Config& c = config->config;
  // The page cache only: compiled pages never travel through cache.remote.
  const std::unique_ptr<cache::BlobStore> store =
      jit_switch == "on" && c.jit_cache ? open_cache_store(c, "kiln script") : nullptr;
  std::unique_ptr<jit::PluginPageCompiler> compiler;
  std::unique_ptr<jit::JitRuntime> runtime;
  if (jit_switch == "on") compiler = open_page_compiler(store.get(), "kiln script");
  if (compiler) {
    auto made = open_jit_runtime({.compiler = compiler.get(),
                                  .store = store.get(),
                                  .verify = c.jit_cache_verify,
                                  .compile_threads = c.jit_compile_threads},
                                 "kiln script");
    if (!made) {
      std::fprintf(stderr, "kiln script: %s\n", made.error().message.c_str());
      return kExitFailed;
    }
    runtime = std::move(*made);
  }
  jit::VmOptions options;
  options.instruction_budget = std::strtoull(args.option("--budget", "0").c_str(), nullptr, 10);
  options.jit = runtime.get();
  options.memory_max = c.scripts_memory_max_bytes;
  options.jit_mode = mode == "checked" ? jit::abi::JitMode::kChecked : jit::abi::JitMode::kUnchecked;
  jit::Vm vm(*program, options);
  bind_without_renderer(vm, *program);
  std::string output;
  if (args.json) vm.set_output([&](std::string_view line) { output += line; });
  const Status ran = vm.run();
  if (runtime) runtime->flush();
  const jit::JitStats stats = runtime ? runtime->stats() : jit::JitStats{};
  if (args.json) {
    nlohmann::json out = {{"file", args.words[2]}, {"ok", bool(ran)}, {"output", output}, {"jit", stats_json(stats)}};
    if (!ran) out["error"] = ran.error().message;
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::fflush(stdout);
    if (!ran) std::fprintf(stderr, "%s\n", ran.error().message.c_str());
    if (args.has("--stats")) std::fprintf(stderr, "jit %s\n", stats.summary().c_str());
  }
  // A cached page that differs from a fresh compile fails the run, as it fails a cook.
  if (stats.verify_mismatches)
    std::fprintf(stderr, "kiln script: verify: %s %s from a fresh compile\n",
                 count_of(stats.verify_mismatches, "cached page").c_str(),
                 stats.verify_mismatches == 1 ? "differs" : "differ");
  return ran && !stats.verify_mismatches ? kExitOk : kExitFailed;
}

}  // namespace kiln::cli
