// The code generator: calls of script functions, closures, methods, print and the libraries.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include "codegen_impl.h"

namespace kiln::lang::detail {

Status FunctionEmitter::call(const Expr& e, unsigned dst, bool want_value) {
  const int line = e.pos.line;
  const bool tail = std::exchange(tail_call_, false);
  const CallTarget target = c_.calls.at(&e);
  if (target.kind == CallTarget::kPrint) {
    // Every argument is evaluated before anything is printed, as Lua does.
    std::vector<unsigned> regs;
    for (const auto& arg : e.items) {
      if (arg->kind == ExprKind::kString) {
        regs.push_back(0);
        continue;
      }
      auto r = temp(arg->pos);
      if (!r) return r.error();
      KILN_TRY(expr_to(*arg, *r));
      regs.push_back(*r);
    }
    for (std::size_t i = 0; i < e.items.size(); ++i) {
      if (i > 0) emit(encode_abc(Op::kPutTab, 0, 0, 0), line);
      const Expr& arg = *e.items[i];
      if (arg.kind == ExprKind::kString) {
        emit(encode_abc(Op::kPutS, 0, 0, 0), line);
        emit_string_bytes(arg.text);
      } else {
        const Type t = type_of(arg);
        emit(encode_abc(t == Type::kBoolean  ? Op::kPutB
                        : t == Type::kString ? Op::kPutStr
                                             : Op::kPutN,
                        regs[i], 0, 0),
             line);
      }
    }
    emit(encode_abc(Op::kPrintLn, 0, 0, 0), line);
    return {};
  }
  // Lua evaluates the called value before the arguments. A function local is read in place: no
  // argument expression can assign it.
  unsigned callee_reg = 0;
  bool callee_in_temp = false;
  // obj:f(...) of a record: f is read from obj once obj is in the first argument's register.
  const bool method = target.kind == CallTarget::kIndirect && e.method;
  if (method) {
    auto r = temp(e.pos);
    if (!r) return r.error();
    callee_reg = *r;
    callee_in_temp = true;
  } else if (target.kind == CallTarget::kIndirect) {
    if (auto local = local_register(*e.a)) {
      callee_reg = *local;
    } else {
      auto r = temp(e.pos);
      if (!r) return r.error();
      KILN_TRY(expr_to(*e.a, *r));
      callee_reg = *r;
      callee_in_temp = true;
    }
  }
  // Arguments in consecutive registers from `base`; the result comes back in `base`. When the
  // result goes to the newest temporary (nothing above it in use, no name reads it), the call is
  // made there: no copy of the result.
  const bool in_place = want_value && !callee_in_temp && int(dst) >= locals_end_ && int(dst) == mark() - 1;
  const unsigned base = in_place ? dst : static_cast<unsigned>(mark());
  for (std::size_t i = 0; i < e.items.size(); ++i) {
    unsigned r = dst;
    if (!in_place || i > 0) {
      auto t = temp(e.items[i]->pos);
      if (!t) return t.error();
      r = *t;
    }
    KILN_TRY(expr_to(*e.items[i], r));
    if (method && i == 0)
      emit(encode_abc(Op::kGetF, callee_reg, r, static_cast<unsigned>(c_.field_index.at(e.a.get()))), line);
  }
  if (e.items.empty() && !in_place && !temp(e.pos)) return fail(e.pos, "expression too complex");
  switch (target.kind) {
    case CallTarget::kScript:
      if (tail) {
        emit(encode_abc(Op::kTailCall, base, static_cast<unsigned>(e.items.size()), 0), line);
        emit(static_cast<std::uint32_t>(target.index), 0);
      } else {
        emit(encode_ad(Op::kCall, base, target.index), line);
      }
      break;
    case CallTarget::kIndirect: {
      // The closure goes after the arguments, where the callee finds itself.
      const unsigned self = base + static_cast<unsigned>(e.items.size());
      while (static_cast<unsigned>(mark()) <= self)
        if (!temp(e.pos)) return fail(e.pos, "expression too complex");
      emit(encode_abc(Op::kMove, self, callee_reg, 0), line);
      emit(encode_abc(Op::kCallR, base, callee_reg, static_cast<unsigned>(e.items.size())), line);
      break;
    }
    case CallTarget::kMath:
      emit(encode_abc(Op::kMath, base, static_cast<unsigned>(target.index), static_cast<unsigned>(e.items.size())),
           line);
      break;
    case CallTarget::kHost:
      emit(encode_abc(Op::kHost, base, static_cast<unsigned>(target.index), static_cast<unsigned>(e.items.size())),
           line);
      break;
    case CallTarget::kString: {
      if (static_cast<StringFn>(target.index) == StringFn::kLen) {
        emit(encode_abc(Op::kLenS, base, base, 0), line);
        break;
      }
      std::uint32_t kinds = 0;
      for (std::size_t i = 0; i < e.items.size(); ++i)
        kinds |= std::uint32_t(arg_kind_of(type_of(*e.items[i]))) << (2 * i);
      emit(encode_abc(Op::kStr, base, static_cast<unsigned>(target.index), static_cast<unsigned>(e.items.size())),
           line);
      emit(kinds, 0);
      break;
    }
    default: break;
  }
  if (want_value && base != dst) emit(encode_abc(Op::kMove, dst, base, 0), line);
  return {};
}

}  // namespace kiln::lang::detail
