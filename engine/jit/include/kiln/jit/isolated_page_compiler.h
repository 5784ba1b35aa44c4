#pragma once
// The LLVM page compiler in worker processes (kiln-page-worker), for the tools that ship pages
// rather than run them here (the cook): LLVM never maps into the tool, whose memory stays that of
// its own work, and a compiler crash costs the page it was compiling, said as an error, instead of
// the tool. Each worker loads kiln-jitc.so itself; workers start with the first compile (a tool
// whose pages all come from the cache starts none), one per concurrent compile, and are kept while
// they live (core/worker_processes.h).
//
// The fingerprint the cache keys need is the kept one (src/kept_fingerprint.h) or, when none is
// kept, a worker's. A worker refuses to compile under another fingerprint than the tool's (an LLVM
// update since it was kept): the compile fails, the new one is kept for the next run.
//
// Code is handed back only when it is cacheable (position-independent, needing nothing outside
// itself): other code names addresses in the worker, and fails its page here.
//
// A compile has no time or memory limit here, as in process: a page is bounded (its words and its
// inlined callees), and LLVM's work on one with it. A worker whose tool dies is killed with it
// (kiln-page-worker asks the kernel for that), so none outlives a cook killed mid-compile.
//
// Thread-safety: compile() from any thread; fingerprint() is fixed at creation.

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "kiln/cache/blob_store.h"
#include "kiln/core/worker_processes.h"
#include "kiln/jit/page_compiler.h"

namespace kiln::jit {

class KeptFingerprint;
namespace page_wire {
struct Reply;
}

struct PageWorkerOptions {
  std::filesystem::path worker;       // empty: default_page_worker()
  cache::BlobStore* store = nullptr;  // where the fingerprint is kept; none: a worker is asked
};

class IsolatedPageCompiler final : public PageCompiler {
 public:
  // Fails when the fingerprint is neither kept nor obtainable (no worker, or its compiler does not
  // load): the message is the worker's.
  static Result<std::unique_ptr<IsolatedPageCompiler>> create(PageWorkerOptions options);
  ~IsolatedPageCompiler() override;
  Result<CompiledPage> compile(const PageRequest& request) override;
  std::string fingerprint() const override { return fingerprint_; }
  // The first reason a page could not be compiled that is not the page's own: the worker could not
  // start, its compiler did not load, its fingerprint changed, or it was lost compiling. Empty when
  // there was none. A tool that must ship every page compiled fails on it.
  std::string failure() const;
  core::WorkerStats stats() const { return workers_.stats(); }
  // Ends the idle workers (LLVM's memory in each): for a tool done compiling for now. A later compile
  // starts a worker again.
  void stop_workers() { workers_.stop_idle(); }

 private:
  IsolatedPageCompiler(PageWorkerOptions options, core::WorkerOptions workers);
  // Sends `request` and waits for the reply; a lost or unreadable worker is an error naming `doing`
  // (an unreadable one is stopped).
  Result<page_wire::Reply> exchange(const std::string& request, const std::string& doing);
  Result<CompiledPage> fail(std::string why);

  PageWorkerOptions options_;
  core::WorkerProcesses workers_;
  std::unique_ptr<KeptFingerprint> kept_;
  std::string fingerprint_;  // set by create(), fixed after
  mutable std::mutex mu_;    // guards failure_
  std::string failure_;
};

// kiln-page-worker beside the running program, else in <program dir>/../lib/kiln; empty when
// there is neither.
std::filesystem::path default_page_worker();

// The worker's side: answers requests on `fd` (a connected socket) with `compiler` until the socket
// is closed; with no compiler, answers each compile with `why_none`. Returns the exit code.
int serve_page_requests(int fd, PageCompiler* compiler, const std::string& why_none);

}  // namespace kiln::jit
