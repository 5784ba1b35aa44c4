// Checked syntax tree -> paged bytecode (see bytecode.h for the layout rules): statements, conditions
// and the program's pages.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include "codegen_impl.h"
#include "kiln/lang/codegen.h"

namespace kiln::lang {
namespace detail {

Result<FunctionCode> FunctionEmitter::run(const Block& body) {
  FunctionCode f;
  const auto& info = c_.functions[index_];
  f.name = info.name;
  f.params = static_cast<int>(info.params.size());
  f.param_types = info.params;
  f.result = info.result;
  for (int p : info.boxed_params) {  // a captured parameter moves into a cell, which its register holds
    auto t = temp(Pos{});
    if (!t) return t.error();
    emit(encode_abc(Op::kNewCell, *t, is_reference(info.params[static_cast<std::size_t>(p)]) ? 1 : 0, 0), line_);
    emit(encode_abc(Op::kSetCell, *t, static_cast<unsigned>(p), 0), line_);
    emit(encode_abc(Op::kMove, static_cast<unsigned>(p), *t, 0), line_);
    release(mark() - 1);
  }
  KILN_TRY(block(body));
  emit(encode_ad(Op::kRet0, 0, 0), line_);
  if (too_long_) return make_error(file_ + ": function '" + info.name + "' is too long for 16-bit jumps");
  f.frame_slots = std::max(max_reg_ + 1, info.frame_slots);
  f.words = code_.size();
  f.lines = std::move(lines_);
  code_out = std::move(code_);
  return f;
}

Status FunctionEmitter::block(const Block& b) {
  for (const auto& st : b) KILN_TRY(statement(*st));
  return {};
}

void FunctionEmitter::store(const VarRef& ref, unsigned reg, int line) {
  switch (ref.kind) {
    case VarRef::kLocal:
      if (static_cast<unsigned>(ref.slot) != reg) emit(encode_abc(Op::kMove, ref.slot, reg, 0), line);
      break;
    case VarRef::kModule: emit(encode_ad(Op::kSetMod, reg, ref.slot), line); break;
    case VarRef::kCell: emit(encode_abc(Op::kSetCell, ref.slot, reg, 0), line); break;
    case VarRef::kUpvalue: emit(encode_abc(Op::kSetUp, self_register(), ref.slot, reg), line); break;
  }
}

void FunctionEmitter::declare(const VarRef& ref, unsigned reg, int line) {
  if (ref.kind == VarRef::kCell) emit(encode_abc(Op::kNewCell, ref.slot, is_reference(ref.type) ? 1 : 0, 0), line);
  store(ref, reg, line);
}

void FunctionEmitter::closure(unsigned dst, int d, int line) {
  const CheckedFunction& fn = c_.functions[static_cast<std::size_t>(d)];
  if (!fn.is_closure()) {
    emit(encode_ad(Op::kLoadF, dst, d), line);
    return;
  }
  emit(encode_ad(Op::kClosure, dst, d), line);
  emit(static_cast<std::uint32_t>(fn.upvalues.size()), 0);
  for (const UpvalueSource& source : fn.upvalues)
    emit(static_cast<std::uint32_t>(source.index) | (source.from_upvalue ? kFromUpvalue : 0), 0);
}

Status FunctionEmitter::statement(const Stmt& st) {
  line_ = st.pos.line;
  const int m = mark();
  Status s = statement_inner(st);
  release(m);
  return s;
}

Status FunctionEmitter::assign(const Stmt& st) {
  const int line = st.pos.line;
  // x = <expression whose only write to its destination is its last instruction>: in place.
  if (st.targets.size() == 1 && st.targets[0]->kind == ExprKind::kName && writes_last(*st.values[0])) {
    const VarRef& ref = c_.names.at(st.targets[0].get());
    if (ref.kind == VarRef::kLocal) return expr_to(*st.values[0], ref.slot);
  }
  // Lua evaluates the values, then stores right to left; an indexed target reads its array
  // and index when it stores if they are in Lua registers (locals), unless the same
  // statement also assigns that local (Lua's check_conflict copies it first).
  auto assigned_here = [&](const Expr& x) {
    if (x.kind != ExprKind::kName || c_.function_refs.count(&x)) return false;
    for (const auto& t : st.targets)
      if (t->kind == ExprKind::kName && t->text == x.text && c_.names.at(t.get()).slot == c_.names.at(&x).slot &&
          c_.names.at(t.get()).kind == c_.names.at(&x).kind)
        return true;
    return false;
  };
  struct Target {
    const Expr* e;
    unsigned arr = 0, idx = 0;
    bool arr_late = false, idx_late = false;
  };
  std::vector<Target> targets;
  auto place = [&](const Expr& x, unsigned& reg, bool& late) -> Status {
    if (!assigned_here(x)) {
      if (auto r = local_register(x)) {
        reg = *r;
        return {};
      }
    }
    auto t = temp(x.pos);
    if (!t) return t.error();
    reg = *t;
    late = lua_register(x) && !assigned_here(x);
    return late ? Status{} : expr_to(x, reg);
  };
  for (const auto& t : st.targets) {
    Target tg{t.get()};
    if (t->kind == ExprKind::kIndex) {
      KILN_TRY(place(*t->a, tg.arr, tg.arr_late));
      KILN_TRY(place(*t->b, tg.idx, tg.idx_late));
    }
    if (t->kind == ExprKind::kField) KILN_TRY(place(*t->a, tg.arr, tg.arr_late));  // the record
    targets.push_back(tg);
  }
  std::vector<unsigned> values;
  for (const auto& v : st.values) {
    auto r = temp(v->pos);
    if (!r) return r.error();
    KILN_TRY(expr_to(*v, *r));
    values.push_back(*r);
  }
  for (std::size_t k = targets.size(); k-- > 0;) {
    const Target& tg = targets[k];
    if (tg.e->kind == ExprKind::kIndex) {
      if (tg.arr_late) KILN_TRY(expr_to(*tg.e->a, tg.arr));
      if (tg.idx_late) KILN_TRY(expr_to(*tg.e->b, tg.idx));
      emit(encode_abc(Op::kSetI, tg.arr, tg.idx, values[k]), tg.e->pos.line);
    } else if (tg.e->kind == ExprKind::kField) {
      if (tg.arr_late) KILN_TRY(expr_to(*tg.e->a, tg.arr));
      emit(encode_abc(Op::kSetF, tg.arr, static_cast<unsigned>(c_.field_index.at(tg.e)), values[k]), tg.e->pos.line);
    } else {
      store(c_.names.at(tg.e), values[k], line);
    }
  }
  return {};
}

Status FunctionEmitter::statement_inner(const Stmt& st) {
  const int line = st.pos.line;
  switch (st.kind) {
    case StmtKind::kLocal: {
      const auto& refs = c_.declared.at(&st);
      // One value into a new local register: computed in place (the new name is not in scope
      // in its own initializer, so nothing reads the register early).
      if (refs.size() == 1 && refs[0].kind == VarRef::kLocal) return expr_to(*st.values[0], refs[0].slot);
      std::vector<unsigned> regs;
      for (const auto& v : st.values) {  // every value first, then the names: as in Lua
        auto r = temp(v->pos);
        if (!r) return r.error();
        KILN_TRY(expr_to(*v, *r));
        regs.push_back(*r);
      }
      for (std::size_t i = 0; i < refs.size(); ++i) declare(refs[i], regs[i], line);
      return {};
    }
    case StmtKind::kAssign: return assign(st);
    case StmtKind::kCall: {
      auto r = temp(st.pos);
      if (!r) return r.error();
      return call(*st.expr, *r, /*want_value=*/false);
    }
    case StmtKind::kDo: return block(st.body);
    case StmtKind::kWhile: {
      const std::size_t top = code_.size();
      std::vector<std::size_t> exit_jumps;
      KILN_TRY(condition(*st.expr, exit_jumps));
      breaks_.emplace_back();
      KILN_TRY(block(st.body));
      patch(emit_jump(Op::kJmp, 0, line), top);
      for (std::size_t j : exit_jumps) patch(j, code_.size());
      return close_breaks();
    }
    case StmtKind::kRepeat: {
      const std::size_t top = code_.size();
      breaks_.emplace_back();
      KILN_TRY(block(st.body));
      std::vector<std::size_t> exit_jumps;  // jumps when the condition is false: back to the top
      KILN_TRY(condition(*st.expr, exit_jumps));
      for (std::size_t j : exit_jumps) patch(j, top);
      return close_breaks();
    }
    case StmtKind::kIf: {
      std::vector<std::size_t> to_end;
      for (std::size_t i = 0; i < st.blocks.size(); ++i) {
        std::vector<std::size_t> next;
        if (i < st.conds.size()) {
          KILN_TRY(condition(*st.conds[i], next));
        }
        KILN_TRY(block(st.blocks[i]));
        if (i + 1 < st.blocks.size()) to_end.push_back(emit_jump(Op::kJmp, 0, line));
        for (std::size_t j : next) patch(j, code_.size());
        if (i < st.conds.size() && next.empty()) break;  // an always-true condition: later branches are dead
      }
      for (std::size_t j : to_end) patch(j, code_.size());
      return {};
    }
    case StmtKind::kNumericFor: {
      auto base = temp(st.pos);
      if (!base) return base.error();
      for (int k = 0; k < 3; ++k)
        if (!temp(st.pos)) return fail(st.pos, "expression too complex");
      KILN_TRY(expr_to(*st.values[0], *base));
      KILN_TRY(expr_to(*st.values[1], *base + 1));
      if (st.values.size() > 2) {
        KILN_TRY(expr_to(*st.values[2], *base + 2));
      } else {
        emit_number(*base + 2, 1.0, line);
      }
      const std::size_t prep = emit_jump(Op::kForPrep, *base, line);
      const std::size_t body = code_.size();
      declare(c_.declared.at(&st)[0], *base + 3, line);
      breaks_.emplace_back();
      KILN_TRY(block(st.body));
      patch(prep, code_.size());
      patch(emit_jump(Op::kForLoop, *base, line), body);
      return close_breaks();
    }
    case StmtKind::kBreak: breaks_.back().push_back(emit_jump(Op::kJmp, 0, line)); return {};
    case StmtKind::kReturn: {
      if (st.values.empty()) {
        emit(encode_ad(Op::kRet0, 0, 0), line);
        return {};
      }
      auto r = temp(st.pos);
      if (!r) return r.error();
      tail_call_ = st.values[0]->kind == ExprKind::kCall;  // taken by that call, not by its arguments'
      KILN_TRY(expr_to(*st.values[0], *r));
      tail_call_ = false;
      emit(encode_ad(Op::kRet, *r, 0), line);
      return {};
    }
    case StmtKind::kFunction: {
      const int d = c_.function_index.at(&st);
      emit(encode_ad(Op::kDefine, 0, d), line);
      if (!c_.functions[static_cast<std::size_t>(d)].is_closure()) return {};
      // A local function that captures: its variable holds its closure, which may capture the
      // variable itself (recursion), so the cell exists before the closure is made.
      const VarRef& ref = c_.declared.at(&st)[0];
      if (ref.kind == VarRef::kCell) emit(encode_abc(Op::kNewCell, ref.slot, 1, 0), line);
      auto t = temp(st.pos);
      if (!t) return t.error();
      closure(*t, d, line);
      store(ref, *t, line);
      return {};
    }
  }
  return {};
}

Status FunctionEmitter::close_breaks() {
  for (std::size_t j : breaks_.back()) patch(j, code_.size());
  breaks_.pop_back();
  return {};
}

Status FunctionEmitter::condition(const Expr& cond, std::vector<std::size_t>& jumps_if_false) {
  if (cond.kind == ExprKind::kBinary && cond.binop == BinOp::kAnd) {
    KILN_TRY(condition(*cond.a, jumps_if_false));
    return condition(*cond.b, jumps_if_false);
  }
  const int m = mark();
  // A comparison with a number literal tests the other operand against the constant.
  if (cond.kind == ExprKind::kBinary && (cond.a->kind == ExprKind::kNumber) != (cond.b->kind == ExprKind::kNumber)) {
    const bool literal_left = cond.a->kind == ExprKind::kNumber;
    Op op = Op::kCount;
    switch (cond.binop) {  // x op K; K op x is x (op mirrored) K
      case BinOp::kLt: op = literal_left ? Op::kJNotGtK : Op::kJNotLtK; break;
      case BinOp::kLe: op = literal_left ? Op::kJNotGeK : Op::kJNotLeK; break;
      case BinOp::kGt: op = literal_left ? Op::kJNotLtK : Op::kJNotGtK; break;
      case BinOp::kGe: op = literal_left ? Op::kJNotLeK : Op::kJNotGeK; break;
      case BinOp::kEq: op = Op::kJNotEqK; break;
      case BinOp::kNe: op = Op::kJEqK; break;
      default: break;
    }
    if (op != Op::kCount) {
      const Expr& x = literal_left ? *cond.b : *cond.a;
      unsigned r;
      KILN_TRY(operand_register(x, r));
      emit(encode_abc(op, r, 0, 0), cond.pos.line);
      jumps_if_false.push_back(emit(0, 0));
      raw_offsets_.insert(jumps_if_false.back());
      emit_constant((literal_left ? *cond.a : *cond.b).number);
      release(m);
      return {};
    }
  }
  // A comparison of numbers or booleans tests and branches in one instruction.
  if (cond.kind == ExprKind::kBinary && !is_array(type_of(*cond.a)) && type_of(*cond.a) != Type::kString) {
    Op op = Op::kCount;
    bool swap = false;
    switch (cond.binop) {
      case BinOp::kLt: op = Op::kJNotLt; break;
      case BinOp::kLe: op = Op::kJNotLe; break;
      case BinOp::kGt:
        op = Op::kJNotLt;
        swap = true;
        break;
      case BinOp::kGe:
        op = Op::kJNotLe;
        swap = true;
        break;
      case BinOp::kEq: op = Op::kJNotEq; break;
      case BinOp::kNe: op = Op::kJEq; break;
      default: break;
    }
    if (op != Op::kCount) {
      unsigned a, b;
      KILN_TRY(operands(cond, a, b, /*lua_order=*/true));
      emit(encode_abc(op, swap ? b : a, swap ? a : b, 0), cond.pos.line);
      jumps_if_false.push_back(emit(0, 0));
      raw_offsets_.insert(jumps_if_false.back());
      release(m);
      return {};
    }
  }
  auto r = temp(cond.pos);
  if (!r) return r.error();
  KILN_TRY(expr_to(cond, *r));
  if (type_of(cond) == Type::kBoolean) jumps_if_false.push_back(emit_jump(Op::kJmpIfNot, *r, cond.pos.line));
  release(m);
  return {};
}

}  // namespace detail

using namespace jit;
using detail::FunctionEmitter;

Result<Program> compile_program(const CheckedScript& checked, const std::vector<HostSignature>& host) {
  Program program;
  program.file = checked.script->file;
  program.module_slots = checked.module_slots;
  program.host = host;
  for (std::size_t f = 0; f < checked.functions.size(); ++f) {
    FunctionEmitter emitter(checked, static_cast<int>(f), program.file);
    const Block& body = f == 0 ? checked.script->body : checked.functions[f].def->body;
    auto code = emitter.run(body);
    if (!code) return code.error();
    // Every function starts on a fresh page: editing it moves no other function.
    code->first_page = program.page_count();
    const std::size_t pages = (code->words + kPageWords - 1) / kPageWords;
    program.words.insert(program.words.end(), emitter.code_out.begin(), emitter.code_out.end());
    program.words.resize((code->first_page + pages) * kPageWords, 0);
    program.entries.resize(code->first_page + pages);
    program.entries[code->first_page].push_back(0);
    for (std::size_t p = 1; p < pages; ++p) program.entries[code->first_page + p].push_back(0);  // fall-through
    program.functions.push_back(std::move(*code));
  }
  // Return sites, and jump targets reached from another page, are entries too.
  for (const auto& fn : program.functions) {
    const std::uint32_t* words = program.code(&fn - program.functions.data());
    for (std::size_t pc = 0; pc < fn.words; ++pc) {
      if (fn.lines[pc] == 0 && pc > 0) continue;  // inline data
      const Op op = op_of(words[pc]);
      const std::size_t page = fn.first_page + pc / kPageWords;
      auto add = [&](std::size_t target) {
        const std::size_t tp = fn.first_page + target / kPageWords;
        auto& e = program.entries[tp];
        const auto off = static_cast<std::uint16_t>(target % kPageWords);
        if ((op == Op::kCall || op == Op::kCallR || op == Op::kTailCall || tp != page) &&
            std::find(e.begin(), e.end(), off) == e.end())
          e.push_back(off);
      };
      if (op == Op::kCall || op == Op::kCallR) add(pc + 1);
      if (op == Op::kTailCall) add(pc + 2);
      if (op == Op::kJmp || op == Op::kJmpIf || op == Op::kJmpIfNot || op == Op::kForPrep || op == Op::kForLoop)
        add(static_cast<std::size_t>(static_cast<long>(pc) + 1 + d_of(words[pc])));
      if (has_inline_offset(op))
        add(static_cast<std::size_t>(static_cast<long>(pc) + 2 + static_cast<std::int32_t>(words[pc + 1])));
    }
  }
  for (auto& e : program.entries) std::sort(e.begin(), e.end());
  return program;
}

}  // namespace kiln::lang
