// The dispatcher between compiled pages and the entries compiled code calls back (ctx->call,
// ctx->resume): what runs when a compiled page leaves its page, calls or stops before a return.

#include "kiln/jit/inlining.h"
#include "kiln/jit/page_analysis.h"
#include "vm_impl.h"

namespace kiln::jit {

const PageCode* Vm::Impl::warm_up(std::size_t page) {
  if (++heat[page] < options.jit->options().hot_threshold) return nullptr;
  if (!value_callees) value_callees = jit::value_callees(program);
  slots[page] = options.jit->request(page_key_words(program, page, *value_callees),
                                     jit_entries(program.page(page), program.entries[page]), mode);
  return slots[page]->code.load(std::memory_order_acquire);
}

Ran Vm::Impl::run_compiled(Cursor& at, std::size_t stop_depth) {
  Frame*& f = at.f;
  const std::uint32_t*& code = at.code;
  Value*& R = at.R;
  std::size_t& pc = at.pc;
  for (;;) {
    const FunctionCode& fn = program.functions[f->function];
    if (pc >= fn.words) return Ran::kInterpret;
    const std::size_t offset = pc % kPageWords;
    const PageCode* page = compiled_page(fn.first_page + pc / kPageWords);
    if (!page || !page->entries.test(offset)) return Ran::kInterpret;
    context.regs = R;
    const std::uint64_t exit = page->function(&context, static_cast<std::uint32_t>(offset));
    // Calls the page made may have grown the frames and the stack.
    f = &frames.back();
    R = stack.data() + f->base;
    if (abi::exit_failed(exit)) return Ran::kFailed;
    if (abi::exit_returned(exit)) {
      if (return_from_page(stop_depth)) return Ran::kReturned;
      f = &frames.back();
      code = program.code(f->function);
      R = stack.data() + f->base;
      pc = f->pc;
      continue;
    }
    pc = static_cast<std::size_t>(static_cast<std::int64_t>(pc - offset) + abi::exit_target(exit));
    if (!abi::exit_interprets(exit)) continue;
    const std::uint32_t w = code[pc];
    if (op_of(w) == Op::kCall) {
      const std::size_t callee = ud_of(w);
      const FunctionCode& target = program.functions[callee];
      const std::size_t args_at = f->base + a_of(w);
      if (!can_call(callee) || stack.size() < args_at + static_cast<std::size_t>(target.frame_slots) + 1)
        return Ran::kInterpret;  // the interpreter reports it, or grows the stack
      if (mode == abi::JitMode::kChecked) ++*context.counted;
      f->pc = pc + 1;
      push(callee, args_at, args_at);
      f = &frames.back();
      code = program.code(callee);
      R = stack.data() + args_at;
      pc = 0;
      continue;
    }
    return Ran::kInterpret;
  }
}

Ran Vm::Impl::finish(Cursor& at, std::size_t stop_depth, bool interpret) {
  if (!interpret) {
    if (const Ran ran = run_compiled(at, stop_depth); ran != Ran::kInterpret) return ran;
  }
  at.f->pc = at.pc;
  Value v{0.0};
  Status done = execute(stop_depth, &v);
  if (!done) {
    failure = std::move(done.error());
    return Ran::kFailed;
  }
  returned = v;
  return Ran::kReturned;
}

std::uint32_t Vm::Impl::call_from_page(abi::Context* ctx, std::uint32_t callee, std::uint32_t a) {
  return static_cast<Impl*>(ctx->vm)->call_natively(callee, a);
}

std::uint32_t Vm::Impl::call_natively(std::size_t callee, std::size_t a) {
  if (context.native_left < kSlowCallUnits || !can_call(callee)) return abi::kCallInterpret;
  const std::size_t stop_depth = frames.size();
  const std::size_t args_at = frames.back().base + a;
  Ran ran = Ran::kFailed;
  context.native_left -= kSlowCallUnits;
  try {
    const FunctionCode& target = program.functions[callee];
    stack_at_least(args_at + static_cast<std::size_t>(target.frame_slots) + 1);
    if (mode == abi::JitMode::kChecked) ++*context.counted;
    push(callee, args_at, args_at);
    Cursor at{&frames.back(), program.code(callee), stack.data() + args_at, 0};
    Frame*& f = at.f;
    Value*& R = at.R;
    std::size_t& pc = at.pc;
    // Most calls: the callee's first page has code and returns from it.
    const PageCode* page = compiled_page(target.first_page);
    std::uint64_t exit = 0;
    if (page && page->entries.test(0)) {
      // From now on compiled callers enter it themselves.
      call_entries[callee] = {page->function, static_cast<std::uint64_t>(target.frame_slots) + 1};
      context.regs = R;
      exit = page->function(&context, 0);
      if (abi::exit_returned(exit)) {
        frames.pop_back();
        context.native_left += kSlowCallUnits;
        context.regs = stack.data() + frames.back().base;
        return abi::kCallReturned;  // the result is where the page stored it
      }
      f = &frames.back();
      R = stack.data() + f->base;
      if (abi::exit_failed(exit)) {
        context.native_left += kSlowCallUnits;
        return abi::kCallFailed;
      }
      pc = static_cast<std::size_t>(abi::exit_target(exit));
    }
    ran = finish(at, stop_depth, abi::exit_interprets(exit));
  } catch (...) {  // no exception may unwind through compiled code
    failure_exception = std::current_exception();
    ran = Ran::kFailed;
  }
  context.native_left += kSlowCallUnits;
  if (ran == Ran::kFailed) return abi::kCallFailed;
  stack[args_at] = returned;
  context.regs = stack.data() + frames.back().base;
  return abi::kCallReturned;
}

std::uint32_t Vm::Impl::resume_from_page(abi::Context* ctx, std::uint64_t exit) {
  return static_cast<Impl*>(ctx->vm)->resume_natively(exit);
}

std::uint32_t Vm::Impl::resume_natively(std::uint64_t exit) {
  if (abi::exit_failed(exit)) return abi::kCallFailed;
  const std::size_t stop_depth = frames.size() - 1;
  const std::size_t args_at = frames.back().base;
  Ran ran = Ran::kFailed;
  // The call is made already: it runs even with little budget left (its own calls then do not nest).
  const std::uint64_t units = std::min(context.native_left, kSlowCallUnits);
  context.native_left -= units;
  try {
    Cursor at{&frames.back(), program.code(frames.back().function), stack.data() + args_at,
              static_cast<std::size_t>(abi::exit_target(exit))};  // entered at its first word
    ran = finish(at, stop_depth, abi::exit_interprets(exit));
  } catch (...) {
    failure_exception = std::current_exception();
    ran = Ran::kFailed;
  }
  context.native_left += units;
  if (ran == Ran::kFailed) return abi::kCallFailed;
  stack[args_at] = returned;
  return abi::kCallReturned;
}

}  // namespace kiln::jit
