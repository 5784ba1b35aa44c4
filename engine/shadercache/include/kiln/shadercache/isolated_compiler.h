#pragma once
// Runs glslang so that a hostile or unlucky shader cannot take the tool down with it.
//
// glslang recurses over the expression tree on the caller's stack (a 30,000-term expression
// overflows 8 MB) and has no bound on macro expansion (a 40-line file can ask for gigabytes).
// Both modes compile on a thread with a large stack (kCompileStackBytes), so deep but honest
// expressions compile. The process mode, what the tools use, goes further, as Unreal's
// ShaderCompileWorker does: each compile runs in a kiln-shader-worker process under a memory limit
// (its address space, and its resident size watched from here) and a timeout, so a crash, an
// exhausted memory limit or a runaway fails that one
// variant with a message while everything else continues. Workers are started on demand, one per
// concurrent compile, reused while they live, and replaced when one dies.
//
// Thread-safety: compile() may be called from any number of threads at once; each call has a
// worker (or thread) of its own. The worker list is guarded by one mutex, never held while
// compiling.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "kiln/core/config.h"
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

class IsolatedCompiler {
 public:
  explicit IsolatedCompiler(CompileIsolation isolation);
  ~IsolatedCompiler();  // stops the workers
  IsolatedCompiler(const IsolatedCompiler&) = delete;
  IsolatedCompiler& operator=(const IsolatedCompiler&) = delete;

  Result<GlslOutput> compile(const GlslInput& input);
  IsolatedCompilerStats stats() const;
  const CompileIsolation& isolation() const { return isolation_; }

 private:
  struct Worker;
  Result<std::unique_ptr<Worker>> start_worker();
  Result<GlslOutput> compile_in_worker(const GlslInput& input);
  Error out_of_memory(const GlslInput& input) const;

  CompileIsolation isolation_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Worker>> idle_;
  IsolatedCompilerStats stats_;
};

// compile_glsl on a thread with a kCompileStackBytes stack.
Result<GlslOutput> compile_glsl_on_large_stack(const GlslInput& input);

// The worker's side: answers compile requests on `fd` (a connected socket) until it is closed.
// Returns the process exit code.
int serve_compile_requests(int fd);

// kiln-shader-worker beside the running executable (or in <prefix>/lib/kiln), or empty when there is none.
std::filesystem::path default_compile_worker();

// How the tools run glslang by the configuration: in kiln-shader-worker processes beside the
// program, limited by shaders.compile_memory_max and shaders.compile_timeout, unless
// shaders.compile_workers is off.
CompileIsolation compile_isolation(const Config& config);

}  // namespace kiln::shadercache
