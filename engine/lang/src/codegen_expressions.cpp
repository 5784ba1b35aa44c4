// The code generator: expressions, operators, strings joined, and/or.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include "codegen_impl.h"

namespace kiln::lang::detail {

Status FunctionEmitter::operand_register(const Expr& x, unsigned& r) {
  if (auto local = local_register(x)) {
    r = *local;
    return {};
  }
  auto t = temp(x.pos);
  if (!t) return t.error();
  r = *t;
  return expr_to(x, r);
}

Status FunctionEmitter::operands(const Expr& e, unsigned& ra, unsigned& rb, bool lua_order) {
  const auto la = local_register(*e.a), lb = local_register(*e.b);
  const bool a_late = lua_order && !la && lua_register(*e.a);
  std::optional<unsigned> ta, tb;
  if (!la) {
    auto t = temp(e.pos);
    if (!t) return t.error();
    ta = *t;
  }
  if (!lb) {
    auto t = temp(e.pos);
    if (!t) return t.error();
    tb = *t;
  }
  if (ta && !a_late) KILN_TRY(expr_to(*e.a, *ta));
  if (tb) KILN_TRY(expr_to(*e.b, *tb));
  if (ta && a_late) KILN_TRY(expr_to(*e.a, *ta));
  ra = la ? *la : *ta;
  rb = lb ? *lb : *tb;
  return {};
}

Status FunctionEmitter::expr_to(const Expr& e, unsigned dst) {
  const int m = mark();
  Status s = expr_inner(e, dst);
  release(m);
  return s;
}

Status FunctionEmitter::expr_inner(const Expr& e, unsigned dst) {
  const int line = e.pos.line;
  switch (e.kind) {
    case ExprKind::kNumber: emit_number(dst, e.number, line); return {};
    case ExprKind::kBool: emit(encode_abc(Op::kLoadB, dst, e.boolean ? 1 : 0, 0), line); return {};
    case ExprKind::kString:
      emit(encode_abc(Op::kLoadS, dst, 0, 0), line);
      emit_string_bytes(e.text);
      return {};
    case ExprKind::kName: {
      if (auto f = c_.function_refs.find(&e); f != c_.function_refs.end()) {
        emit(encode_ad(Op::kLoadF, dst, f->second), line);
        return {};
      }
      const VarRef& ref = c_.names.at(&e);
      switch (ref.kind) {
        case VarRef::kLocal:
          if (static_cast<unsigned>(ref.slot) != dst) emit(encode_abc(Op::kMove, dst, ref.slot, 0), line);
          break;
        case VarRef::kModule: emit(encode_ad(Op::kGetMod, dst, ref.slot), line); break;
        case VarRef::kCell: emit(encode_abc(Op::kGetCell, dst, ref.slot, 0), line); break;
        case VarRef::kUpvalue: emit(encode_abc(Op::kGetUp, dst, self_register(), ref.slot), line); break;
      }
      return {};
    }
    case ExprKind::kFunction: {
      const int d = c_.function_exprs.at(&e);
      emit(encode_ad(Op::kDefine, 0, d), line);
      closure(dst, d, line);
      return {};
    }
    case ExprKind::kField: {
      if (const auto f = c_.field_index.find(&e); f != c_.field_index.end()) {  // a record's field
        unsigned r;
        KILN_TRY(operand_register(*e.a, r));
        emit(encode_abc(Op::kGetF, dst, r, static_cast<unsigned>(f->second)), line);
        return {};
      }
      emit_number(dst, e.text == "pi" ? 3.141592653589793 : HUGE_VAL, line);  // math.pi, math.huge
      return {};
    }
    case ExprKind::kCall: return call(e, dst, true);
    case ExprKind::kIndex: {
      unsigned a, b;
      KILN_TRY(operands(e, a, b, /*lua_order=*/true));
      emit(encode_abc(Op::kGetI, dst, a, b), line);
      return {};
    }
    case ExprKind::kTable: {
      auto t = temp(e.pos);
      auto item = temp(e.pos);
      if (!t || !item) return fail(e.pos, "expression too complex");
      if (const auto r = c_.records.find(&e); r != c_.records.end()) {  // a record: its fields in source order
        emit(encode_abc(Op::kNewRec, *t, static_cast<unsigned>(r->second.fields), 0), line);
        emit(static_cast<std::uint32_t>(r->second.refs), 0);
        emit(static_cast<std::uint32_t>(r->second.refs >> 32), 0);
        for (std::size_t i = 0; i < e.items.size(); ++i) {
          KILN_TRY(expr_to(*e.items[i], *item));
          emit(encode_abc(Op::kSetF, *t, static_cast<unsigned>(r->second.slots[i]), *item), e.items[i]->pos.line);
        }
        emit(encode_abc(Op::kMove, dst, *t, 0), line);
        return {};
      }
      const Type array = type_of(e);
      emit(encode_abc(Op::kNewArr, *t, array == Type::kBooleanArray ? 1 : array == Type::kArray ? 2 : 0, 0), line);
      for (const auto& it : e.items) {
        KILN_TRY(expr_to(*it, *item));
        emit(encode_abc(Op::kAppend, *t, *item, 0), it->pos.line);
      }
      emit(encode_abc(Op::kMove, dst, *t, 0), line);
      return {};
    }
    case ExprKind::kUnary: {
      auto a = temp(e.pos);
      if (!a) return a.error();
      KILN_TRY(expr_to(*e.a, *a));
      switch (e.unop) {
        case UnOp::kNeg: emit(encode_abc(Op::kNeg, dst, *a, 0), line); break;
        case UnOp::kLen:
          emit(encode_abc(type_of(*e.a) == Type::kString ? Op::kLenS : Op::kLen, dst, *a, 0), line);
          break;
        case UnOp::kNot:
          if (type_of(*e.a) == Type::kBoolean)
            emit(encode_abc(Op::kNot, dst, *a, 0), line);
          else
            emit(encode_abc(Op::kLoadB, dst, 0, 0), line);  // numbers and arrays are true
          break;
      }
      return {};
    }
    case ExprKind::kBinary: return binary(e, dst);
  }
  return {};
}

Status FunctionEmitter::binary(const Expr& e, unsigned dst) {
  const int line = e.pos.line;
  if (e.binop == BinOp::kAnd || e.binop == BinOp::kOr) return logical(e, dst);
  if (e.binop == BinOp::kConcat) return concat(e, dst);
  // A number literal as the right operand (or the left of + and *, which commute) is a constant
  // operand: no register is loaded for it.
  Op with_constant = Op::kCount;
  switch (e.binop) {
    case BinOp::kAdd: with_constant = Op::kAddK; break;
    case BinOp::kSub: with_constant = Op::kSubK; break;
    case BinOp::kMul: with_constant = Op::kMulK; break;
    case BinOp::kDiv: with_constant = Op::kDivK; break;
    default: break;
  }
  if (with_constant != Op::kCount) {
    const bool commutes = e.binop == BinOp::kAdd || e.binop == BinOp::kMul;
    const Expr* x = nullptr;
    const Expr* constant = nullptr;
    if (e.b->kind == ExprKind::kNumber)
      x = e.a.get(), constant = e.b.get();
    else if (commutes && e.a->kind == ExprKind::kNumber)
      x = e.b.get(), constant = e.a.get();
    if (x) {
      unsigned r;
      KILN_TRY(operand_register(*x, r));
      emit(encode_abc(with_constant, dst, r, 0), line);
      emit_constant(constant->number);
      return {};
    }
  }
  unsigned a, b;
  KILN_TRY(operands(e, a, b, /*lua_order=*/true));
  const bool arrays = is_array(type_of(*e.a));
  if (type_of(*e.a) == Type::kString) {  // the same order of operands as numbers' comparisons
    switch (e.binop) {
      case BinOp::kLt: emit(encode_abc(Op::kLtS, dst, a, b), line); break;
      case BinOp::kLe: emit(encode_abc(Op::kLeS, dst, a, b), line); break;
      case BinOp::kGt: emit(encode_abc(Op::kLtS, dst, b, a), line); break;
      case BinOp::kGe: emit(encode_abc(Op::kLeS, dst, b, a), line); break;
      case BinOp::kEq:
      case BinOp::kNe:
        emit(encode_abc(Op::kEqS, dst, a, b), line);
        if (e.binop == BinOp::kNe) emit(encode_abc(Op::kNot, dst, dst, 0), line);
        break;
      default: break;
    }
    return {};
  }
  switch (e.binop) {
    case BinOp::kAdd: emit(encode_abc(Op::kAdd, dst, a, b), line); break;
    case BinOp::kSub: emit(encode_abc(Op::kSub, dst, a, b), line); break;
    case BinOp::kMul: emit(encode_abc(Op::kMul, dst, a, b), line); break;
    case BinOp::kDiv: emit(encode_abc(Op::kDiv, dst, a, b), line); break;
    case BinOp::kMod: emit(encode_abc(Op::kMod, dst, a, b), line); break;
    case BinOp::kPow: emit(encode_abc(Op::kPow, dst, a, b), line); break;
    case BinOp::kLt: emit(encode_abc(Op::kLt, dst, a, b), line); break;
    case BinOp::kLe: emit(encode_abc(Op::kLe, dst, a, b), line); break;
    case BinOp::kGt: emit(encode_abc(Op::kLt, dst, b, a), line); break;
    case BinOp::kGe: emit(encode_abc(Op::kLe, dst, b, a), line); break;
    case BinOp::kEq:
    case BinOp::kNe:
      emit(encode_abc(arrays ? Op::kEqRef : Op::kEq, dst, a, b), line);
      if (e.binop == BinOp::kNe) emit(encode_abc(Op::kNot, dst, dst, 0), line);
      break;
    default: break;
  }
  return {};
}

Status FunctionEmitter::concat(const Expr& e, unsigned dst) {
  std::vector<const Expr*> operands;
  concat_operands(e, operands);
  const unsigned base = static_cast<unsigned>(mark());
  for (unsigned k = 0; k < kMaxStringArgs; ++k)
    if (!temp(e.pos)) return fail(e.pos, "expression too complex");
  std::size_t next = 0;
  bool joined = false;  // base holds the operands joined so far
  while (next < operands.size()) {
    unsigned count = joined ? 1 : 0;
    std::uint32_t kinds = 0;  // the joined part is a string
    if (joined) kinds = std::uint32_t(ArgKind::kString);
    for (; count < kMaxStringArgs && next < operands.size(); ++count, ++next) {
      KILN_TRY(expr_to(*operands[next], base + count));
      kinds |= std::uint32_t(arg_kind_of(type_of(*operands[next]))) << (2 * count);
    }
    emit(encode_abc(Op::kStr, base, static_cast<unsigned>(StringFn::kConcat), count), e.pos.line);
    emit(kinds, 0);
    joined = true;
  }
  if (dst != base) emit(encode_abc(Op::kMove, dst, base, 0), e.pos.line);
  return {};
}

Status FunctionEmitter::logical(const Expr& e, unsigned dst) {
  const int line = e.pos.line;
  if (e.binop == BinOp::kOr && e.a->kind == ExprKind::kBinary && e.a->binop == BinOp::kAnd) {
    const Expr& c = *e.a->a;
    const Expr& x = *e.a->b;
    std::vector<std::size_t> to_else;
    KILN_TRY(condition(c, to_else));
    KILN_TRY(expr_to(x, dst));
    std::optional<std::size_t> to_end;
    if (type_of(x) == Type::kBoolean)
      to_end = emit_jump(Op::kJmpIf, dst, line);
    else if (!to_else.empty())
      to_end = emit_jump(Op::kJmp, 0, line);
    if (to_else.empty() && never_false(type_of(x))) {  // c and x are never false: y is never evaluated
      if (to_end) patch(*to_end, code_.size());
      return {};
    }
    for (std::size_t j : to_else) patch(j, code_.size());
    KILN_TRY(expr_to(*e.b, dst));
    if (to_end) patch(*to_end, code_.size());
    return {};
  }
  KILN_TRY(expr_to(*e.a, dst));
  const Type ta = type_of(*e.a);
  if (ta != Type::kBoolean) {  // a is never false
    if (e.binop == BinOp::kOr) return {};
    return expr_to(*e.b, dst);
  }
  const std::size_t skip = emit_jump(e.binop == BinOp::kAnd ? Op::kJmpIfNot : Op::kJmpIf, dst, line);
  KILN_TRY(expr_to(*e.b, dst));
  patch(skip, code_.size());
  return {};
}

}  // namespace kiln::lang::detail
