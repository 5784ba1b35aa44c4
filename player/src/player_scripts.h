#pragma once
// The cooked scripts as the game runs them: each loaded once into its own Vm (compiled pages where
// the pack has them), its engine functions bound when it loads (a material parameter's place in the
// scene, or nothing without one), run once, then its frame(t) called once per rendered frame.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/core/result.h"
#include "kiln/jit/jit_runtime.h"
#include "kiln/jit/vm.h"
#include "kiln/render/scene_renderer.h"
#include "kiln/runtime/cooked_set.h"

namespace kiln::player {

class PlayerScripts {
 public:
  // Loads every script of `set`; `scene` (may be null) is where their engine functions write.
  // `memory_max`: what each script's heap may keep live (the setting scripts.memory_max).
  static Result<std::unique_ptr<PlayerScripts>> load(const runtime::CookedSet& set, jit::JitRuntime* jit,
                                                     render::SceneRenderer* scene, std::uint64_t memory_max);
  ~PlayerScripts();

  // Runs each script's chunk once. `echo`: what a script prints goes to standard output as it
  // prints it, under a line naming it.
  void run_all(bool echo);
  // Calls frame(t) of every script that defines it; a failure ends that script's frames.
  void frame(double t);

  // Per script: ok, ms, lines, output and its digest, error, frames called.
  const nlohmann::json& results() const { return results_; }
  bool all_ok() const;

 private:
  struct Script;
  PlayerScripts() = default;
  std::vector<std::unique_ptr<Script>> scripts_;
  nlohmann::json results_ = nlohmann::json::array();
};

}  // namespace kiln::player
