#pragma once
// Runs glslang and SPIRV-Cross so that a hostile or unlucky shader cannot take the tool down with them.
//
// glslang recurses over the expression tree on the caller's stack (a 30,000-term expression
// overflows 8 MB) and has no bound on macro expansion (a 40-line file can ask for gigabytes).
// Both modes compile on a thread with a large stack (kCompileStackBytes), so deep but honest
// expressions compile. The process mode, what the tools use, goes further, as Unreal's
// ShaderCompileWorker does: each compile runs in a kiln-shader-worker process under a memory limit
// (its address space, and its resident size watched from here) and a timeout, so a crash, an
// exhausted memory limit or a runaway fails that one
// variant with a message while everything else continues. Workers are started on demand, one per
// concurrent compile, reused while they live, and replaced when one dies. SPIRV-Cross (reflection
// and translation to the other backends) runs in the same workers: it recurses over types and
// throws on what it does not support, and a module it cannot handle must cost that variant an
// error, never the tool. A worker lost while reflecting keeps the compile's SPIR-V: the stage comes
// back with its reflection marked unavailable and the reason.
//
// Thread-safety: compile() may be called from any number of threads at once; each call has a
// worker (or thread) of its own. The worker list is guarded by one mutex, never held while
// compiling.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/worker_processes.h"
#include "kiln/runtime/reflection.h"
#include "kiln/shadercache/backends.h"
#include "kiln/shadercache/glsl_compiler.h"

namespace kiln::shadercache {

inline constexpr std::size_t kCompileStackBytes = std::size_t{256} << 20;

struct CompileIsolation {
  enum class Mode { kThread, kProcess };
  Mode mode = Mode::kThread;
  std::filesystem::path worker;                                // kProcess: the kiln-shader-worker executable
  std::uint64_t memory_limit_bytes = 4ull << 30;               // kProcess: address space of each worker
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};  // kProcess: one compile
};

struct IsolatedCompilerStats {
  std::uint64_t workers_started = 0;
  std::uint64_t workers_lost = 0;  // crashed, out of memory or past the timeout
};

// A stage compiled and read back by SPIRV-Cross.
struct ReflectedStage {
  GlslOutput glsl;
  std::optional<runtime::StageReflection> reflection;  // empty: SPIRV-Cross could not read the module
  std::string reflection_error;                        // why not, without the file and stage
};

// One stage's SPIR-V to a backend's language, its descriptors placed by `bindings` (map_bindings).
struct TranslateInput {
  std::filesystem::path file;  // for messages
  Stage stage = Stage::kFragment;
  std::vector<std::uint32_t> spirv;
  Backend backend = Backend::kSpirv;
  BindingMap bindings;
};

class IsolatedCompiler {
 public:
  explicit IsolatedCompiler(CompileIsolation isolation);
  ~IsolatedCompiler();  // stops the workers
  IsolatedCompiler(const IsolatedCompiler&) = delete;
  IsolatedCompiler& operator=(const IsolatedCompiler&) = delete;

  Result<GlslOutput> compile(const GlslInput& input);
  // compile() and then reflect_spirv() on the result. An error is the compile's; a reflection that
  // failed (a refusal, a crash, the time or memory limit) is in ReflectedStage::reflection_error.
  Result<ReflectedStage> compile_and_reflect(const GlslInput& input);
  // cross_compile(); the error starts with `<file>: error: <stage> stage: `.
  Result<std::string> translate(const TranslateInput& input);
  IsolatedCompilerStats stats() const;
  const CompileIsolation& isolation() const { return isolation_; }

 private:
  using Worker = core::WorkerProcesses::Worker;
  // "<tool> crashed (SIGSEGV) <doing>", "... ran longer than ...", for a reply that did not come.
  std::string describe_loss(const core::WorkerReply& reply, const std::string& tool, const std::string& doing) const;
  Result<ReflectedStage> compile_in_worker(const GlslInput& input, bool reflect);
  Result<std::string> translate_in_worker(const TranslateInput& input);

  CompileIsolation isolation_;
  core::WorkerProcesses workers_;
};

// compile_glsl, reflect_spirv and cross_compile on a thread with a kCompileStackBytes stack.
Result<GlslOutput> compile_glsl_on_large_stack(const GlslInput& input);
Result<runtime::StageReflection> reflect_on_large_stack(const std::vector<std::uint32_t>& spirv);
Result<std::string> translate_on_large_stack(const TranslateInput& input);

// The worker's side: answers compile and translate requests on `fd` (a connected socket) until it is closed.
// Returns the process exit code.
int serve_compile_requests(int fd);

// kiln-shader-worker beside the running executable (or in <prefix>/lib/kiln), or empty when there is none.
std::filesystem::path default_compile_worker();

// How the tools run glslang by the configuration: in kiln-shader-worker processes beside the
// program, limited by shaders.compile_memory_max and shaders.compile_timeout, unless
// shaders.compile_workers is off.
CompileIsolation compile_isolation(const Config& config);

}  // namespace kiln::shadercache
