#pragma once
// The interpreter of Kiln's script bytecode: every script runs here first; the JIT
// runs hot pages natively (VmOptions::jit). A register machine with a computed-goto dispatch loop and an explicit frame
// stack (deep script recursion never deepens the C++ stack).
//
// A runaway script cannot hang its host: call depth is bounded, an instruction budget and a
// cancellation flag are checked on every backward jump and call. Runtime errors (array index out
// of range, call depth exceeded, budget exhausted) come back as `file:line: message`.
//
// Arrays, strings, records and closures live in the Vm's heap, collected by mark and sweep when
// the script has allocated as much as survived the last collection (heap.h); what stays live is
// bounded by VmOptions::memory_max.
//
// Thread-safety: a Vm is used by one thread at a time, and not re-entered (a host function calling
// run() or call() on its own Vm gets an error); cancel() may be called from any thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kiln/jit/bytecode.h"
#include "kiln/jit/jit_runtime.h"

namespace kiln::jit {

struct VmOptions {
  int max_call_depth = 10000;
  std::uint64_t instruction_budget = 0;  // backward jumps and calls allowed; 0: unlimited
  // The bytes the script's arrays and strings may keep live (checked when the collector runs): a
  // script that allocates without bound stops with `file:line: script memory budget exhausted`.
  std::uint64_t memory_max = std::uint64_t{256} << 20;
  // Compiled pages: hot pages are asked for from this runtime (which must outlive the Vm) and run
  // natively from their entries. None: everything is interpreted.
  JitRuntime* jit = nullptr;
  // kUnchecked compiles loops without budget or cancellation checks; a Vm with an instruction
  // budget always uses kChecked.
  abi::JitMode jit_mode = abi::JitMode::kChecked;
};

// A value crossing between the engine and a script (records, closures and arrays of strings,
// arrays or records do not cross).
using ScriptValue = std::variant<double, bool, std::vector<double>, std::vector<bool>, std::string>;

// A host function: numbers and booleans (0/1) in, a number or boolean out (ignored for void).
using HostFunction = std::function<double(std::span<const double>)>;

class Vm {
 public:
  explicit Vm(const Program& program, VmOptions options = {});
  ~Vm();
  Vm(const Vm&) = delete;
  Vm& operator=(const Vm&) = delete;

  // Binds `engine.<name>`; every host function the program calls must be bound before run().
  void bind(const std::string& name, HostFunction fn);
  // Where print writes, one call per line (default: stdout).
  void set_output(std::function<void(std::string_view)> out);

  // Runs the chunk: module variables are set and global functions defined.
  Status run();
  // Calls a function of the script with numbers (booleans as 0/1); its result, 0 for none.
  Result<double> call(const std::string& function, std::span<const double> args);
  // The same with typed values, arrays included (each argument must have the parameter's type);
  // the result as the function's type (0.0 for none). An array the script changes is not copied back.
  Result<ScriptValue> call_values(const std::string& function, std::span<const ScriptValue> args);

  // Stops the running (or the next) run()/call() with "cancelled"; stays set until reset_cancel().
  void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  void reset_cancel() { cancelled_.store(false, std::memory_order_relaxed); }
  std::uint64_t instructions_counted() const { return counted_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> cancelled_{false};
  std::uint64_t counted_ = 0;
};

// Lua 5.1's number formatting for print: "%.14g", with inf, -inf and nan as the C library spells them.
std::string format_number(double v);

}  // namespace kiln::jit
