#include "player_scripts.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "kiln/cache/hash.h"
#include "kiln/jit/program_io.h"
#include "kiln/runtime/script_api.h"

namespace kiln::player {

struct PlayerScripts::Script {
  std::string file;
  jit::Program program;
  std::unique_ptr<jit::Vm> vm;
  std::string output;
  bool echo = false;
  bool ok = true;
  bool has_frame = false;
  std::string error;
  int frames = 0;
};

Result<std::unique_ptr<PlayerScripts>> PlayerScripts::load(const runtime::CookedSet& set, jit::JitRuntime* jit,
                                                           render::SceneRenderer* scene, std::uint64_t memory_max) {
  std::unique_ptr<PlayerScripts> self(new PlayerScripts());
  std::vector<runtime::MaterialRecord> materials;
  for (const std::string& file : set.ids(runtime::EntryKind::kMaterial)) {
    auto m = set.material(file);
    if (!m) return m.error();
    materials.push_back(std::move(*m));
  }
  const auto functions = runtime::parameter_functions(materials);
  for (const std::string& file : set.ids(runtime::EntryKind::kProgram)) {
    auto bytes = set.program(file);
    if (!bytes) return bytes.error();
    auto program =
        jit::deserialize_program(*bytes, set.pack(runtime::PackKind::kScripts).path().string() + ": " + file);
    if (!program) return program.error();
    auto script = std::make_unique<Script>();
    script->file = file;
    script->program = std::move(*program);
    script->vm = std::make_unique<jit::Vm>(
        script->program, jit::VmOptions{.instruction_budget = 1'000'000'000, .memory_max = memory_max, .jit = jit});
    Script* s = script.get();
    script->vm->set_output([s](std::string_view line) {
      s->output += line;
      if (s->echo) std::fwrite(line.data(), 1, line.size(), stdout);
    });
    for (const auto& fn : script->program.functions)
      script->has_frame = script->has_frame || fn.name == runtime::kFrameFunction;
    // Engine functions resolved now, once: a call writes straight into the parameter's place. The
    // program declares every function its project offered; one of a material the set left out
    // (a cook by usage records) is an error only when the code calls it.
    const std::vector<std::string> called = jit::called_host_functions(script->program);
    for (const jit::HostSignature& host : script->program.host) {
      const auto f =
          std::find_if(functions.begin(), functions.end(), [&](const auto& p) { return p.name == host.name; });
      if (f == functions.end()) {
        if (std::binary_search(called.begin(), called.end(), host.name))
          return make_error(file + ": calls engine." + host.name + ", which no material of this set has");
        script->vm->bind(host.name, [](std::span<const double>) { return 0.0; });
        continue;
      }
      std::optional<render::SceneRenderer::ParameterSlot> slot;
      if (scene)
        if (auto found = scene->find_parameter(f->material, f->parameter)) slot = std::move(*found);
      script->vm->bind(host.name, [slot](std::span<const double> args) {
        if (slot) render::SceneRenderer::set_parameter(*slot, args);
        return 0.0;
      });
    }
    self->scripts_.push_back(std::move(script));
  }
  return self;
}

PlayerScripts::~PlayerScripts() = default;

void PlayerScripts::run_all(bool echo) {
  for (auto& s : scripts_) {
    s->echo = echo;
    if (echo) std::printf("player: %s\n", s->file.c_str());
    const auto t0 = std::chrono::steady_clock::now();
    const Status ran = s->vm->run();
    s->ok = bool(ran);
    if (!ran) s->error = ran.error().message;
    s->echo = false;
    const std::string digest = cache::hex64(cache::xxh3_64(s->output)).substr(0, 12);
    results_.push_back(
        {{"script", s->file},
         {"ok", s->ok},
         {"ms", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()},
         {"lines", std::count(s->output.begin(), s->output.end(), '\n')},
         {"output", s->output},
         {"output_digest", digest},
         {"error", s->error},
         {"frames", 0}});
  }
}

void PlayerScripts::frame(double t) {
  for (std::size_t i = 0; i < scripts_.size(); ++i) {
    Script& s = *scripts_[i];
    if (!s.ok || !s.has_frame) continue;
    const double args[] = {t};
    if (auto called = s.vm->call(std::string(runtime::kFrameFunction), args); !called) {
      s.ok = false;
      s.error = called.error().message;
      results_[i]["ok"] = false;
      results_[i]["error"] = s.error;
      continue;
    }
    results_[i]["frames"] = ++s.frames;
  }
}

bool PlayerScripts::all_ok() const {
  return std::all_of(scripts_.begin(), scripts_.end(), [](const auto& s) { return s->ok; });
}

}  // namespace kiln::player
