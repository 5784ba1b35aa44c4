// The interpreter's side of the heap: when it collects, what its roots are, and the program's
// string constants.

#include <algorithm>
#include <cstdio>
#include <string>

#include "kiln/core/config.h"
#include "string_lib.h"

#include "vm_impl.h"

namespace kiln::jit {

Status Vm::Impl::collect(const Frame& f, std::size_t pc) {
  // Every frame's registers lie below the top frame's end; the module variables; the constants
  // (pinned). Registers above the top frame are dead.
  const std::size_t top = std::min(stack.size(), f.base + starts[f.function].registers);
  const std::span<const Value> roots[] = {{stack.data(), top}, {module.data(), module.size()}};
  const std::uint64_t live = heap.collect(roots);
  if (live > options.memory_max) {  // still due: the next allocation collects and stops again
    char amount[64];
    if (live < (std::uint64_t{1} << 20))
      std::snprintf(amount, sizeof amount, "%.1f KiB", static_cast<double>(live) / 1024);
    else
      std::snprintf(amount, sizeof amount, "%.1f MiB", static_cast<double>(live) / (1 << 20));
    return error_at(f, pc,
                    std::string("script memory budget exhausted (") + amount +
                        " live, over scripts.memory_max = " + format_size(options.memory_max) + ")");
  }
  elements = 0;
  // The next collection after as many words as survived, at least kFirstCollectionWords, and
  // before the budget would be passed.
  const std::uint64_t live_words = live / sizeof(Value), max_words = options.memory_max / sizeof(Value);
  std::uint64_t next = std::max(live_words, kFirstCollectionWords);
  if (live_words + next > max_words) next = std::max<std::uint64_t>(max_words - live_words, 1);
  context.max_elements = next;
  return {};
}

bool Vm::Impl::run_string_function(Value* R, std::uint32_t w, std::uint32_t kinds, std::string* error) {
  const StringFn fn = static_cast<StringFn>(b_of(w));
  const auto v = call_string_function(heap, fn, {&R[a_of(w)], c_of(w), kinds}, options.memory_max);
  if (!v) {
    *error = v.error().message;
    return false;
  }
  R[a_of(w)] = *v;
  if (fn != StringFn::kToNumber && fn != StringFn::kLen && fn != StringFn::kByte)
    count_string(static_cast<const String*>(R[a_of(w)].ref));
  return true;
}

void Vm::Impl::make_closure(Value* R, const Frame& f, std::uint32_t w, const std::uint32_t* sources) {
  const std::uint32_t count = sources[0];
  Closure* made = heap.new_closure(ud_of(w), count);
  elements += 2 + count;
  const Closure* maker = nullptr;  // the running function's own closure, for upvalues of upvalues
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::uint32_t source = sources[1 + k];
    if (source & kFromUpvalue) {
      if (!maker) maker = static_cast<const Closure*>(R[program.functions[f.function].params].ref);
      made->cells()[k] = maker->cells()[source & ~kFromUpvalue];
    } else {
      made->cells()[k] = R[source];
    }
  }
  R[a_of(w)].ref = made;
}

void Vm::Impl::make_record(Value* R, std::uint32_t w, const std::uint32_t* mask) {
  const std::uint64_t refs = mask[0] | (std::uint64_t(mask[1]) << 32);
  R[a_of(w)].ref = heap.new_record(b_of(w), refs);
  elements += 3 + b_of(w);
}

Closure* Vm::Impl::function_value(std::size_t fn) {
  if (!function_values[fn]) {
    function_values[fn] = heap.new_closure(static_cast<std::uint32_t>(fn), 0);
    heap.pin(function_values[fn]);
    elements += 2;
  }
  return function_values[fn];
}

std::uint32_t Vm::Impl::runtime_op_from_page(abi::Context* ctx, Value* regs, const std::uint32_t* at) {
  return static_cast<Impl*>(ctx->vm)->runtime_op(regs, at);
}

std::int32_t Vm::Impl::compare_strings_from_page(const void* a, const void* b) {
  return compare_strings(static_cast<const String*>(a), static_cast<const String*>(b));
}

std::uint32_t Vm::Impl::runtime_op(Value* R, const std::uint32_t* at) {
  const std::uint32_t w = at[0];
  const Frame& f = frames.back();
  try {
    const Op op = op_of(w);
    // A collection over the budget, an error of a string function, a function not defined yet:
    // the interpreter runs the instruction again and reports it with its line.
    if (collection_due() && !collect(f, 0)) return abi::kCallInterpret;
    switch (op) {
      case Op::kNewArr: R[a_of(w)].a = new_array(b_of(w) == 2); break;
      case Op::kNewRec: make_record(R, w, at + 1); break;
      case Op::kNewCell: R[a_of(w)].ref = new_cell(b_of(w) != 0); break;
      case Op::kClosure: make_closure(R, f, w, at + 1); break;
      case Op::kLoadS: R[a_of(w)].ref = constant_string(at); break;
      case Op::kLoadF:
        if (!defined[ud_of(w)]) return abi::kCallInterpret;
        R[a_of(w)].ref = function_value(ud_of(w));
        break;
      case Op::kStr: {
        std::string failed;
        if (!run_string_function(R, w, at[1], &failed)) return abi::kCallInterpret;
        break;
      }
      default: return abi::kCallInterpret;
    }
  } catch (...) {  // out of memory: the interpreter meets it again and it propagates from there
    return abi::kCallInterpret;
  }
  return abi::kCallReturned;
}

String* Vm::Impl::constant_string(const std::uint32_t* at) {
  // A direct-mapped cache in front of the table: a loop loads the same few constants again and again.
  ConstantSlot& slot = recent_constants[(reinterpret_cast<std::uintptr_t>(at) >> 2) % recent_constants.size()];
  if (slot.at == at) return slot.string;
  if (const auto it = constants.find(at); it != constants.end()) {
    slot = {at, it->second};
    return it->second;
  }
  const std::uint32_t length = at[1];
  String* s = heap.new_string(length);
  for (std::uint32_t k = 0; k < length; ++k) s->bytes()[k] = static_cast<char>((at[2 + k / 4] >> (8 * (k % 4))) & 0xff);
  heap.pin(s);
  count_string(s);
  constants.emplace(at, s);
  return s;
}

}  // namespace kiln::jit
