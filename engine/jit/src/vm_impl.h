#pragma once
// The interpreter's state (Vm::Impl), shared by the interpreter (vm.cpp) and the dispatcher between
// compiled pages with the entries compiled code calls (vm_dispatch.cpp). Private to engine/jit.
//
// Thread-safety: as Vm's: one thread at a time; compiled code runs on that thread and calls back
// into it through the context.

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/jit/inlining.h"
#include "kiln/jit/jit_runtime.h"
#include "heap.h"
#include "kiln/jit/vm.h"
#include "values.h"

namespace kiln::jit {

// Calls made by compiled code nest on the machine stack, within a budget of units of about 256
// bytes (a page's own frame is ~160): a page calling a page directly takes one, a call or resume
// through the interpreter (whose frames are larger) takes kSlowCallUnits. Past it, calls go through
// the dispatcher's loop, which keeps them on the frame stack alone. At most ~1 MiB of machine stack.
inline constexpr std::uint64_t kNativeStackUnits = 4096;
inline constexpr std::uint64_t kSlowCallUnits = 16;

// The first collection comes after this many words were allocated (512 KiB), each later one after
// as many as survived the one before (and at least this many), within the memory budget.
inline constexpr std::uint64_t kFirstCollectionWords = std::uint64_t{1} << 16;

// How a run of compiled code ended.
enum class Ran {
  kInterpret,  // the interpreter goes on at the current frame's pc
  kReturned,   // the frame the run was to finish returned: its result is in `returned`
  kFailed,     // a call inside failed: the error (or exception) is kept in `failure`
};

using Frame = abi::Frame;

// The frame stack, kept where compiled code reads and pushes it (the context's frames, frame_count
// and frame_limit): a growable array whose count compiled code may change during a call.
class FrameStack {
 public:
  // `max_call_depth` below 0 counts as 0.
  FrameStack(abi::Context& context, int max_call_depth)
      : context_(context), max_depth_(std::size_t(std::max(0, max_call_depth))) {}
  std::size_t size() const { return context_.frame_count; }
  std::size_t max_depth() const { return max_depth_; }
  Frame& back() { return context_.frames[context_.frame_count - 1]; }
  Frame& emplace_back() {
    if (context_.frame_count == storage_.size()) grow();
    return context_.frames[context_.frame_count++];
  }
  void pop_back() { --context_.frame_count; }
  void clear() { context_.frame_count = 0; }

 private:
  void grow() {
    storage_.resize(std::max<std::size_t>(64, storage_.size() * 2));
    context_.frames = storage_.data();
    context_.frame_limit = std::min(storage_.size(), max_depth_);
  }
  abi::Context& context_;
  std::size_t max_depth_;
  std::vector<Frame> storage_;
};

// Where the interpreter is, handed to the dispatcher and back. A copy, so that the interpreter's own
// variables never have their address taken and stay in machine registers.
struct Cursor {
  Frame* f;
  const std::uint32_t* code;
  Value* R;
  std::size_t pc;
};

struct Vm::Impl {
  const Program& program;
  VmOptions options;
  std::vector<Value> module;
  abi::Context context{};  // before the frame stack, which lives in it
  std::vector<Value> stack;
  FrameStack frames;
  Heap heap;
  std::unordered_map<const std::uint32_t*, String*> constants;  // string constants, by their LOADS in the code
  struct ConstantSlot {
    const std::uint32_t* at = nullptr;
    String* string = nullptr;
  };
  std::array<ConstantSlot, 64> recent_constants{};
  std::vector<Closure*> function_values;  // per function: its value without upvalues (LOADF), once taken
  std::vector<std::uint8_t> defined;      // bytes, not vector<bool>: read on every call
  std::vector<HostFunction> host;
  std::function<void(std::string_view)> out = [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  };
  std::string line;
  std::uint64_t elements = 0;  // words allocated since the last collection (context.elements)
  bool running = false;

  // Compiled pages (options.jit): a slot per program page once it got hot, and its heat until then.
  std::vector<std::shared_ptr<PageSlot>> slots;
  std::vector<std::uint32_t> heat;
  std::optional<ValueCallees> value_callees;  // computed when the first page gets hot
  abi::JitMode mode = abi::JitMode::kChecked;
  std::vector<abi::CallEntry> call_entries;  // per function: its first page's code, once it has some
  // Per function, what a call needs at once: its bytecode and the registers its frame takes (+1).
  struct FunctionStart {
    const std::uint32_t* code;
    std::size_t registers;
  };
  std::vector<FunctionStart> starts;
  Value returned{0.0};                   // Ran::kReturned's result
  std::optional<Error> failure;          // Ran::kFailed's error ...
  std::exception_ptr failure_exception;  // ... or exception (out of memory), rethrown outside compiled code

  Impl(const Program& p, VmOptions o)
      : program(p),
        options(o),
        module(p.module_slots),
        frames(context, o.max_call_depth),
        function_values(p.functions.size()),
        defined(p.functions.size()),
        call_entries(p.functions.size()) {
    host.resize(p.host.size());
    for (auto& v : module) v.n = 0;
    if (options.jit) {
      slots.resize(p.page_count());
      heat.resize(p.page_count());
      mode = options.instruction_budget ? abi::JitMode::kChecked : options.jit_mode;
    }
    context.helpers = abi::helper_table();
    context.budget = options.instruction_budget;
    context.call = &call_from_page;
    context.resume = &resume_from_page;
    context.runtime_op = &runtime_op_from_page;
    context.compare_strings = &compare_strings_from_page;
    context.vm = this;
    context.entries = call_entries.data();
    context.defined = defined.data();
    context.elements = &elements;
    context.max_elements = std::clamp<std::uint64_t>(options.memory_max / sizeof(Value), 1, kFirstCollectionWords);
    for (std::size_t f = 0; f < p.functions.size(); ++f)
      starts.push_back({p.code(f), static_cast<std::size_t>(p.functions[f].frame_slots) + 1});
  }

  // The register stack, grown (and moved) only here and by reset_stack; the context says where it is.
  void stack_at_least(std::size_t size) {
    if (stack.size() >= size) [[likely]]
      return;
    stack.resize(size + 256);
    context.stack = stack.data();
    context.stack_end = stack.data() + stack.size();
  }
  void reset_stack(std::size_t size) {
    stack.assign(size, Value{0.0});
    context.stack = stack.data();
    context.stack_end = stack.data() + stack.size();
  }

  // The code of program page `page`, asking the runtime for it once the page is hot.
  const PageCode* compiled_page(std::size_t page) {
    if (PageSlot* slot = slots[page].get()) [[likely]]
      return slot->code.load(std::memory_order_acquire);
    return warm_up(page);
  }
  [[gnu::noinline]] const PageCode* warm_up(std::size_t page);

  // The dispatcher between compiled pages: runs compiled code from `pc` for as long as there is code
  // where control goes, and resolves the calls and returns compiled pages hand back (calls
  // resolve through a table at run time) without going through the interpreter when nothing unusual
  // happens. Anything else (an error to report, a budget running out) is left at `pc` for the
  // interpreter, which stays the reference for every instruction. Updates the interpreter's state.
  // The return of the frame at `stop_depth` ends the run (Ran::kReturned).
  [[gnu::noinline]] Ran run_compiled(Cursor& at, std::size_t stop_depth);

  // A new top frame. Its fields are stored one by one: a Frame built aside and copied in is read back
  // by wide loads that wait for the narrow stores (a store-forwarding stall on every call).
  void push(std::size_t function, std::size_t base, std::size_t result) {
    Frame& frame = frames.emplace_back();
    frame.function = function;
    frame.pc = 0;
    frame.base = base;
    frame.result = result;
  }

  // The top frame's page returned, its result in its first register (the caller's result register):
  // pops it, and says whether it was the frame at `stop_depth` (its result then in `returned`).
  bool return_from_page(std::size_t stop_depth) {
    const Value v = stack[frames.back().base];
    frames.pop_back();
    if (frames.size() != stop_depth) return false;
    returned = v;
    return true;
  }

  // Whether a call to `callee` may be made without the interpreter: defined, within the call depth,
  // and (checked mode) one more tick within the budget and not cancelled.
  bool can_call(std::size_t callee) const {
    const bool tick_ok =
        mode == abi::JitMode::kUnchecked || ((!context.budget || *context.counted + 1 <= context.budget) &&
                                             !context.cancelled->load(std::memory_order_relaxed));
    return callee < defined.size() && defined[callee] && tick_ok && frames.size() < frames.max_depth();
  }

  // Runs from `at` (the instruction there interpreted first, if `interpret`), compiled where there
  // is code and interpreted where not, until the frame at `stop_depth` returns.
  Ran finish(Cursor& at, std::size_t stop_depth, bool interpret);

  // ctx->call: a call made by a compiled page, run to its return while the page waits.
  static std::uint32_t call_from_page(abi::Context* ctx, std::uint32_t callee, std::uint32_t a);
  std::uint32_t call_natively(std::size_t callee, std::size_t a);

  // ctx->runtime_op: one allocating or string instruction of a compiled page (jit_abi.h).
  static std::uint32_t runtime_op_from_page(abi::Context* ctx, Value* regs, const std::uint32_t* at);
  // ctx->compare_strings (jit_abi.h).
  static std::int32_t compare_strings_from_page(const void* a, const void* b);
  std::uint32_t runtime_op(Value* R, const std::uint32_t* at);
  // The instructions both the interpreter and runtime_op run; false: an error the interpreter reports.
  [[nodiscard]] bool run_string_function(Value* R, std::uint32_t w, std::uint32_t kinds, std::string* error);
  void make_closure(Value* R, const Frame& f, std::uint32_t w, const std::uint32_t* sources);
  void make_record(Value* R, std::uint32_t w, const std::uint32_t* mask);
  Closure* function_value(std::size_t fn);  // LOADF's value of function fn (defined)

  // ctx->resume: a compiled page entered the top frame's function directly and its code stopped
  // with `exit` before returning; runs it to its return while the page waits.
  static std::uint32_t resume_from_page(abi::Context* ctx, std::uint64_t exit);
  std::uint32_t resume_natively(std::uint64_t exit);

  // The failure a compiled page's call left: its exception again, or its error.
  Error take_failure() {
    if (failure_exception) std::rethrow_exception(std::exchange(failure_exception, nullptr));
    Error e = std::move(*failure);
    failure.reset();
    return e;
  }

  Error error_at(const Frame& f, std::size_t pc, const std::string& message) const {
    const auto& fn = program.functions[f.function];
    int line_no = 0;
    for (std::size_t p = std::min(pc, fn.lines.size() - 1);; --p) {  // inline data has line 0: look back
      if (fn.lines[p] != 0) {
        line_no = fn.lines[p];
        break;
      }
      if (p == 0) break;
    }
    return make_error(program.file + ":" + std::to_string(line_no) + ": " + message);
  }

  // Allocation. An instruction that allocates first calls make_room (the collection it may run
  // sees the instruction's operands in its registers), then allocates, counting what it took.
  [[nodiscard]] bool collection_due() const { return elements >= context.max_elements; }
  // Collects with the frame `f` on top of the stack (its registers and every frame below are the
  // roots); an error at `pc` when what stays live is over options.memory_max.
  [[gnu::noinline]] Status collect(const Frame& f, std::size_t pc);
  Array* new_array(bool refs) {
    elements += sizeof(Array) / sizeof(Value) + 1;
    return heap.new_array(refs);
  }
  void count_string(const String* s) { elements += (sizeof(String) + s->length + 16) / sizeof(Value); }
  Cell* new_cell(bool refs) {
    elements += (sizeof(ObjectHeader) + sizeof(Cell)) / sizeof(Value);
    return heap.new_cell(refs);
  }
  String* constant_string(const std::uint32_t* at);  // the string of the LOADS at `at`

  // Points the context at a run's budget counter and cancellation flag.
  void begin_run(const std::atomic<bool>& cancelled, std::uint64_t& counted) {
    context.counted = &counted;
    context.cancelled = &cancelled;
    context.native_left = kNativeStackUnits;
  }
  // Runs from the top frame until the frame at `stop_depth` returns; its result lands in `*result`.
  Status execute(std::size_t stop_depth, Value* result);
  // The error of a call one deeper than the call depth allows, at the caller's `pc`.
  [[gnu::cold, gnu::noinline]] Error overflow_error(const Frame& caller, std::size_t pc) const {
    return error_at(caller, pc, "stack overflow (call depth over " + std::to_string(options.max_call_depth) + ")");
  }
};

}  // namespace kiln::jit
