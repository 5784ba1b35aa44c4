#include "kiln/jit/vm.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "string_lib.h"
#include "vm_impl.h"

namespace kiln::jit {
namespace {

double math_call(MathFn fn, const Value* args, unsigned n) {
  const double x = args[0].n;
  switch (fn) {
    case MathFn::kAbs: return std::fabs(x);
    case MathFn::kFloor: return std::floor(x);
    case MathFn::kCeil: return std::ceil(x);
    case MathFn::kSqrt: return std::sqrt(x);
    case MathFn::kSin: return std::sin(x);
    case MathFn::kCos: return std::cos(x);
    case MathFn::kTan: return std::tan(x);
    case MathFn::kAsin: return std::asin(x);
    case MathFn::kAcos: return std::acos(x);
    case MathFn::kAtan: return std::atan(x);
    case MathFn::kExp: return std::exp(x);
    case MathFn::kLog: return std::log(x);
    case MathFn::kLog10: return std::log10(x);
    case MathFn::kFmod: return std::fmod(x, args[1].n);
    case MathFn::kPow: return std::pow(x, args[1].n);
    case MathFn::kAtan2: return std::atan2(x, args[1].n);
    case MathFn::kMin: {
      double m = x;
      for (unsigned i = 1; i < n; ++i)
        if (args[i].n < m) m = args[i].n;  // Lua 5.1's loop: a NaN argument is kept only if first
      return m;
    }
    case MathFn::kMax: {
      double m = x;
      for (unsigned i = 1; i < n; ++i)
        if (args[i].n > m) m = args[i].n;
      return m;
    }
  }
  return 0;
}

}  // namespace

std::string format_number(double v) {
  char text[kNumberTextBytes];
  return std::string(text, number_text(v, text));
}

Status Vm::Impl::execute(std::size_t stop_depth, Value* result) {
  // One label an instruction, op_<MNEMONIC>: a row of KILN_OPCODES without its label does not compile.
  static const void* const dispatch[] = {
#define KILN_OP_LABEL(name, mnemonic, format, flow, effect) &&op_##mnemonic,
      KILN_OPCODES(KILN_OP_LABEL)
#undef KILN_OP_LABEL
  };

  const std::uint64_t budget = options.instruction_budget;
  std::uint64_t& counted = *context.counted;
  const std::atomic<bool>& cancelled = *context.cancelled;
  Frame* f = &frames.back();
  const std::uint32_t* code = program.code(f->function);
  Value* R = stack.data() + f->base;
  std::size_t pc = f->pc;
  std::uint32_t w;
  const bool jit = options.jit != nullptr;
  context.module = module.data();

// Where control arrives from elsewhere (a call, a return, a loop's backward branch), compiled code
// takes over if the page has it for this entry.
#define KILN_ENTER()                                    \
  do {                                                  \
    if (jit) {                                          \
      Cursor at{f, code, R, pc};                        \
      const Ran ran = run_compiled(at, stop_depth);     \
      f = at.f;                                         \
      code = at.code;                                   \
      R = at.R;                                         \
      pc = at.pc;                                       \
      if (ran != Ran::kInterpret) {                     \
        if (ran == Ran::kFailed) return take_failure(); \
        if (result) *result = returned;                 \
        return {};                                      \
      }                                                 \
    }                                                   \
  } while (0)

// Counted on every backward jump and call: the points a runaway script must pass.
#define KILN_TICK(at)                                                                                             \
  do {                                                                                                            \
    if ((budget && ++counted > budget) || cancelled.load(std::memory_order_relaxed))                              \
      return error_at(*f, at, cancelled.load() ? "cancelled" : "instruction budget exhausted (runaway script?)"); \
  } while (0)
#define NEXT()                                  \
  do {                                          \
    w = code[pc++];                             \
    goto* dispatch[static_cast<int>(w & 0xff)]; \
  } while (0)
#define A a_of(w)
#define B b_of(w)
#define C c_of(w)

  KILN_ENTER();
  NEXT();
op_LOADN : {
  std::uint64_t bits = code[pc] | (std::uint64_t(code[pc + 1]) << 32);
  std::memcpy(&R[A].n, &bits, 8);
  pc += 2;
  NEXT();
}
op_LOADB:
  R[A].n = B;
  NEXT();
op_MOVE:
  R[A] = R[B];
  NEXT();
op_GETMOD:
  R[A] = module[ud_of(w)];
  NEXT();
op_SETMOD:
  module[ud_of(w)] = R[A];
  NEXT();
op_ADD:
  R[A].n = R[B].n + R[C].n;
  NEXT();
op_SUB:
  R[A].n = R[B].n - R[C].n;
  NEXT();
op_MUL:
  R[A].n = R[B].n * R[C].n;
  NEXT();
// The constant right operand: two words at `at` (after the instruction, or after a branch's offset).
#define KILN_CONSTANT(at) std::bit_cast<double>(code[at] | (std::uint64_t(code[(at) + 1]) << 32))
#define K() KILN_CONSTANT(pc)
op_ADDK:
  R[A].n = R[B].n + K();
  pc += 2;
  NEXT();
op_SUBK:
  R[A].n = R[B].n - K();
  pc += 2;
  NEXT();
op_MULK:
  R[A].n = R[B].n * K();
  pc += 2;
  NEXT();
op_DIVK:
  R[A].n = R[B].n / K();
  pc += 2;
  NEXT();
op_DIV:
  R[A].n = R[B].n / R[C].n;
  NEXT();
op_MOD : {
  const double a = R[B].n, b = R[C].n;
  R[A].n = a - std::floor(a / b) * b;  // Lua 5.1: floored
  NEXT();
}
op_POW:
  R[A].n = std::pow(R[B].n, R[C].n);
  NEXT();
op_NEG:
  R[A].n = -R[B].n;
  NEXT();
op_NOT:
  R[A].n = R[B].n == 0 ? 1 : 0;
  NEXT();
op_EQ:
  R[A].n = R[B].n == R[C].n ? 1 : 0;
  NEXT();
op_LT:
  R[A].n = R[B].n < R[C].n ? 1 : 0;
  NEXT();
op_LE:
  R[A].n = R[B].n <= R[C].n ? 1 : 0;
  NEXT();
op_EQREF:
  R[A].n = R[B].a == R[C].a ? 1 : 0;
  NEXT();
op_JMP : {
  const int d = d_of(w);
  if (d < 0) KILN_TICK(pc - 1);
  pc += d;
  if (d < 0) KILN_ENTER();
  NEXT();
}
op_JMPIF:
  if (R[A].n != 0) {
    const int d = d_of(w);
    if (d < 0) KILN_TICK(pc - 1);
    pc += d;
    if (d < 0) KILN_ENTER();
  }
  NEXT();
op_JMPIFNOT:
  if (R[A].n == 0) {
    const int d = d_of(w);
    if (d < 0) KILN_TICK(pc - 1);
    pc += d;
    if (d < 0) KILN_ENTER();
  }
  NEXT();
op_FORPREP : {
  // Lua 5.1: the loop starts one step back, and FORLOOP adds the step before each test.
  R[A].n -= R[A + 2].n;
  pc += d_of(w);
  NEXT();
}
op_FORLOOP : {
  const double step = R[A + 2].n;
  const double v = R[A].n + step;
  R[A].n = v;
  if (step > 0 ? v <= R[A + 1].n : v >= R[A + 1].n) {
    R[A + 3].n = v;
    KILN_TICK(pc - 1);
    pc += d_of(w);
    KILN_ENTER();
  }
  NEXT();
}
// An instruction that allocates: a collection first when one is due, while its operands are in
// its registers (roots).
#define KILN_MAKE_ROOM()                              \
  do {                                                \
    if (collection_due()) [[unlikely]] {              \
      if (Status room = collect(*f, pc - 1); !room) { \
        return room;                                  \
      }                                               \
    }                                                 \
  } while (0)
op_NEWARR:
  KILN_MAKE_ROOM();
  R[A].a = new_array(B == 2);
  NEXT();
op_APPEND:
  KILN_MAKE_ROOM();
  ++elements;
  static_cast<Array*>(R[A].a)->push_back(R[B]);
  NEXT();
op_GETI : {
  const Array* arr = static_cast<const Array*>(R[B].a);
  const double i = R[C].n;
  if (!(i >= 1 && i <= static_cast<double>(arr->count()) && i == std::floor(i)))
    return error_at(*f, pc - 1,
                    "array index " + format_number(i) + " out of range (size " + std::to_string(arr->count()) +
                        "; nil is outside Kiln's script subset)");
  R[A] = (*arr)[static_cast<std::size_t>(i) - 1];
  NEXT();
}
op_SETI : {
  Array* arr = static_cast<Array*>(R[A].a);
  const double i = R[B].n;
  const double n = static_cast<double>(arr->count());
  if (i >= 1 && i <= n && i == std::floor(i)) {
    (*arr)[static_cast<std::size_t>(i) - 1] = R[C];
  } else if (i == n + 1) {
    KILN_MAKE_ROOM();
    ++elements;
    arr->push_back(R[C]);
  } else {
    return error_at(*f, pc - 1,
                    "array index " + format_number(i) + " out of range for a write (size " +
                        std::to_string(arr->count()) + "; arrays grow by a[#a + 1] = v)");
  }
  NEXT();
}
op_LEN:
  R[A].n = static_cast<double>(R[B].a->size);
  NEXT();
op_LOADF : {
  const std::size_t fn = ud_of(w);
  // Lua would hold nil here and fail at the call; Kiln fails where the value is taken.
  if (!defined[fn])
    return error_at(*f, pc - 1, "function '" + program.functions[fn].name + "' used before its definition");
  if (!function_values[fn]) KILN_MAKE_ROOM();
  R[A].ref = function_value(fn);
  NEXT();
}
op_TAILCALL:
op_CALLR:
op_CALL : {
  const std::size_t call_at = pc - 1;
  std::size_t callee;
  if (op_of(w) == Op::kTailCall) [[unlikely]] {
    callee = code[pc++];
    if (callee == f->function) {  // the running function again: its frame, from its start
      KILN_TICK(call_at);
      for (unsigned i = 0; i < B; ++i) R[i] = R[A + i];
      pc = 0;
      KILN_ENTER();
      NEXT();
    }
  } else {
    callee = op_of(w) == Op::kCallR ? static_cast<const Closure*>(R[B].ref)->function : ud_of(w);
  }
  if (!defined[callee])
    return error_at(*f, call_at,
                    "attempt to call function '" + program.functions[callee].name + "' before its definition");
  KILN_TICK(call_at);
  if (frames.size() >= frames.max_depth()) [[unlikely]]
    return overflow_error(*f, call_at);
  f->pc = pc;
  const std::size_t base = f->base + A;
  const FunctionStart& start = starts[callee];
  stack_at_least(base + start.registers);
  push(callee, base, base);
  f = &frames.back();
  code = start.code;
  R = stack.data() + base;
  pc = 0;
  KILN_ENTER();
  NEXT();
}
op_MATH:
  R[A].n = math_call(static_cast<MathFn>(B), &R[A], C);
  NEXT();
op_HOST : {
  double args[256];
  for (unsigned i = 0; i < C; ++i) args[i] = R[A + i].n;
  const double v = host[B](std::span<const double>(args, C));
  R[A].n = program.host[B].result == Type::kBoolean ? (v != 0 ? 1.0 : 0.0) : v;  // booleans are 0 or 1
  NEXT();
}
op_RET:
op_RET0 : {
  const Value v = op_of(w) == Op::kRet ? R[A] : Value{0.0};
  const std::size_t result_at = f->result;
  frames.pop_back();
  if (frames.size() == stop_depth) {
    if (result) *result = v;
    return {};
  }
  f = &frames.back();
  stack[result_at] = v;
  code = starts[f->function].code;
  R = stack.data() + f->base;
  pc = f->pc;
  KILN_ENTER();
  NEXT();
}
op_PUTN:
  line += format_number(R[A].n);
  NEXT();
op_PUTB:
  line += R[A].n != 0 ? "true" : "false";
  NEXT();
op_PUTS : {
  const std::uint32_t n = code[pc++];
  for (std::uint32_t k = 0; k < n; ++k) line += static_cast<char>((code[pc + k / 4] >> (8 * (k % 4))) & 0xff);
  pc += (n + 3) / 4;
  NEXT();
}
op_PUTTAB:
  line += '\t';
  NEXT();
op_PRINTLN:
  line += '\n';
  out(line);
  line.clear();
  NEXT();
op_LOADS:
  KILN_MAKE_ROOM();
  R[A].ref = constant_string(code + pc - 1);
  pc += 1 + (code[pc] + 3) / 4;
  NEXT();
op_STR : {
  KILN_MAKE_ROOM();
  {  // the message's scope ends before the dispatch jumps on
    std::string failed;
    if (!run_string_function(R, w, code[pc], &failed)) return error_at(*f, pc - 1, failed);
  }
  ++pc;
  NEXT();
}
op_LENS:
  R[A].n = static_cast<double>(static_cast<const String*>(R[B].ref)->length);
  NEXT();
op_EQS:
  R[A].n = string_comparison(Op::kEqS, R[B], R[C]);
  NEXT();
op_LTS:
  R[A].n = string_comparison(Op::kLtS, R[B], R[C]);
  NEXT();
op_LES:
  R[A].n = string_comparison(Op::kLeS, R[B], R[C]);
  NEXT();
op_PUTSTR:
  line.append(static_cast<const String*>(R[A].ref)->view());
  NEXT();
op_NEWREC:
  KILN_MAKE_ROOM();
  make_record(R, w, code + pc);
  pc += 2;
  NEXT();
op_GETF:
  R[A] = static_cast<const Record*>(R[B].ref)->fields()[C];
  NEXT();
op_SETF:
  static_cast<Record*>(R[A].ref)->fields()[B] = R[C];
  NEXT();
op_NEWCELL:
  KILN_MAKE_ROOM();
  R[A].ref = new_cell(B != 0);
  NEXT();
op_GETCELL:
  R[A] = static_cast<const Cell*>(R[B].ref)->value;
  NEXT();
op_SETCELL:
  static_cast<Cell*>(R[A].ref)->value = R[B];
  NEXT();
op_GETUP:
  R[A] = static_cast<const Cell*>(static_cast<const Closure*>(R[B].ref)->cells()[C].ref)->value;
  NEXT();
op_SETUP:
  static_cast<Cell*>(static_cast<const Closure*>(R[A].ref)->cells()[B].ref)->value = R[C];
  NEXT();
op_CLOSURE:
  KILN_MAKE_ROOM();
  make_closure(R, *f, w, code + pc);
  pc += 1 + code[pc];
  NEXT();
op_DEFINE:
  defined[ud_of(w)] = true;
  NEXT();
// Compare and branch: the offset word follows (then, against a constant, the constant's two words:
// `rest` words in all); a backward branch is a loop, so it is counted.
#define KILN_BRANCH(taken, rest)                          \
  do {                                                    \
    if (taken) {                                          \
      const auto d = static_cast<std::int32_t>(code[pc]); \
      if (d < 0) KILN_TICK(pc - 1);                       \
      pc += 1 + d;                                        \
      if (d < 0) KILN_ENTER();                            \
    } else {                                              \
      pc += (rest);                                       \
    }                                                     \
    NEXT();                                               \
  } while (0)
op_JNOTLT:
  KILN_BRANCH(!(R[A].n < R[B].n), 1);
op_JNOTLE:
  KILN_BRANCH(!(R[A].n <= R[B].n), 1);
op_JNOTEQ:
  KILN_BRANCH(R[A].n != R[B].n, 1);
op_JEQ:
  KILN_BRANCH(R[A].n == R[B].n, 1);
op_JNOTLTK:
  KILN_BRANCH(!(R[A].n < KILN_CONSTANT(pc + 1)), 3);
op_JNOTLEK:
  KILN_BRANCH(!(R[A].n <= KILN_CONSTANT(pc + 1)), 3);
op_JNOTGTK:
  KILN_BRANCH(!(R[A].n > KILN_CONSTANT(pc + 1)), 3);
op_JNOTGEK:
  KILN_BRANCH(!(R[A].n >= KILN_CONSTANT(pc + 1)), 3);
op_JNOTEQK:
  KILN_BRANCH(R[A].n != KILN_CONSTANT(pc + 1), 3);
op_JEQK:
  KILN_BRANCH(R[A].n == KILN_CONSTANT(pc + 1), 3);
#undef KILN_BRANCH
#undef KILN_MAKE_ROOM
#undef K
#undef KILN_CONSTANT
#undef KILN_TICK
#undef KILN_ENTER
#undef NEXT
#undef A
#undef B
#undef C
}

namespace {
struct Entered {
  bool& running;
  explicit Entered(bool& r) : running(r) { running = true; }
  ~Entered() { running = false; }
};
}  // namespace

Vm::Vm(const Program& program, VmOptions options) : impl_(std::make_unique<Impl>(program, options)) {}
Vm::~Vm() = default;

void Vm::bind(const std::string& name, HostFunction fn) {
  for (std::size_t i = 0; i < impl_->program.host.size(); ++i)
    if (impl_->program.host[i].name == name) impl_->host[i] = std::move(fn);
}

void Vm::set_output(std::function<void(std::string_view)> out) { impl_->out = std::move(out); }

Status Vm::run() {
  if (impl_->running)
    return make_error(impl_->program.file + ": the Vm is already running (re-entered from a host function)");
  Entered entered(impl_->running);
  for (std::size_t i = 0; i < impl_->host.size(); ++i)
    if (!impl_->host[i])
      return make_error(impl_->program.file + ": host function engine." + impl_->program.host[i].name +
                        " is not bound");
  impl_->frames.clear();
  impl_->reset_stack(impl_->program.functions[0].frame_slots + 256);
  impl_->push(0, 0, 0);
  impl_->begin_run(cancelled_, counted_);
  return impl_->execute(0, nullptr);
}

Result<ScriptValue> Vm::call_values(const std::string& name, std::span<const ScriptValue> args) {
  if (impl_->running)
    return make_error(impl_->program.file + ": the Vm is already running (re-entered from a host function)");
  Entered entered(impl_->running);
  for (std::size_t fi = 1; fi < impl_->program.functions.size(); ++fi) {
    const FunctionCode& fn = impl_->program.functions[fi];
    if (fn.name != name) continue;
    if (!impl_->defined[fi])
      return make_error(impl_->program.file + ": function '" + name + "' is not defined yet (run() first)");
    if (args.size() != fn.param_types.size())
      return make_error(impl_->program.file + ": function '" + name + "' takes " + std::to_string(fn.params) +
                        " arguments");
    impl_->frames.clear();
    impl_->reset_stack(fn.frame_slots + 256);
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Type want = fn.param_types[i];
      const ScriptValue& a = args[i];
      if (want == Type::kFunction)
        return make_error(impl_->program.file + ": parameter " + std::to_string(i + 1) + " of '" + name +
                          "' is a function: the engine cannot pass one");
      if (want == Type::kArray || want == Type::kRecord)
        return make_error(impl_->program.file + ": parameter " + std::to_string(i + 1) + " of '" + name + "' is " +
                          (want == Type::kRecord ? "a record" : "an array of strings, arrays or records") +
                          ": the engine cannot pass one");
      const bool ok = (want == Type::kNumber && std::holds_alternative<double>(a)) ||
                      (want == Type::kBoolean && std::holds_alternative<bool>(a)) ||
                      (want == Type::kNumberArray && std::holds_alternative<std::vector<double>>(a)) ||
                      (want == Type::kBooleanArray && std::holds_alternative<std::vector<bool>>(a)) ||
                      (want == Type::kString && std::holds_alternative<std::string>(a));
      if (!ok)
        return make_error(impl_->program.file + ": argument " + std::to_string(i + 1) + " of '" + name + "' must be " +
                          type_name(want));
      Value& slot = impl_->stack[i];
      if (auto* d = std::get_if<double>(&a))
        slot.n = *d;
      else if (auto* b = std::get_if<bool>(&a))
        slot.n = *b ? 1 : 0;
      else if (auto* text = std::get_if<std::string>(&a))
        slot.ref = impl_->heap.new_string(*text);  // counted by the next collection
      else {
        slot.a = impl_->new_array(false);
        if (auto* nums = std::get_if<std::vector<double>>(&a))
          for (double x : *nums) static_cast<Array*>(slot.a)->push_back(Value{x});
        else
          for (bool x : std::get<std::vector<bool>>(a)) static_cast<Array*>(slot.a)->push_back(Value{x ? 1.0 : 0.0});
      }
    }
    impl_->push(fi, 0, 0);
    Value result{0.0};
    impl_->begin_run(cancelled_, counted_);
    KILN_TRY(impl_->execute(0, &result));
    switch (fn.result) {
      case Type::kBoolean: return ScriptValue{result.n != 0};
      case Type::kFunction: return make_error(impl_->program.file + ": '" + name + "' returns a function");
      case Type::kArray:
        return make_error(impl_->program.file + ": '" + name + "' returns an array of strings, arrays or records");
      case Type::kRecord: return make_error(impl_->program.file + ": '" + name + "' returns a record");
      case Type::kString: return ScriptValue{std::string(static_cast<const String*>(result.ref)->view())};
      case Type::kNumberArray: {
        std::vector<double> out;
        for (const Value& v : *static_cast<const Array*>(result.a)) out.push_back(v.n);
        return ScriptValue{std::move(out)};
      }
      case Type::kBooleanArray: {
        std::vector<bool> out;
        for (const Value& v : *static_cast<const Array*>(result.a)) out.push_back(v.n != 0);
        return ScriptValue{std::move(out)};
      }
      default: return ScriptValue{result.n};
    }
  }
  return make_error(impl_->program.file + ": no function '" + name + "'");
}

// The numbers-only form: converts to and from call_values, which does the checking and the call.
Result<double> Vm::call(const std::string& name, std::span<const double> args) {
  const FunctionCode* fn = nullptr;
  for (std::size_t fi = 1; fi < impl_->program.functions.size() && !fn; ++fi)
    if (impl_->program.functions[fi].name == name) fn = &impl_->program.functions[fi];
  std::vector<ScriptValue> values;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Type want = fn && i < fn->param_types.size() ? fn->param_types[i] : Type::kNumber;
    if (want != Type::kNumber && want != Type::kBoolean)
      return make_error(impl_->program.file + ": parameter " + std::to_string(i + 1) + " of '" + name + "' is " +
                        type_name(want) + ": use call_values");
    if (want == Type::kBoolean)
      values.emplace_back(std::in_place_type<bool>, args[i] != 0);
    else
      values.emplace_back(std::in_place_type<double>, args[i]);
  }
  auto result = call_values(name, values);
  if (!result) return result.error();
  if (auto* d = std::get_if<double>(&*result)) return *d;
  if (auto* b = std::get_if<bool>(&*result)) return *b ? 1.0 : 0.0;
  return make_error(impl_->program.file + ": '" + name + "' returns " + type_name(fn->result) + ": use call_values");
}

}  // namespace kiln::jit
