// Checked syntax tree -> paged bytecode (see bytecode.h for the layout rules).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "kiln/lang/codegen.h"

namespace kiln::lang {
using namespace jit;  // the bytecode it writes
namespace {

constexpr int kMaxRegisters = 250;

class FunctionEmitter {
 public:
  FunctionEmitter(const CheckedScript& checked, int function, const std::string& file)
      : c_(checked),
        index_(function),
        file_(file),
        next_reg_(checked.functions[function].frame_slots),
        locals_end_(checked.functions[function].frame_slots) {}

  Result<FunctionCode> run(const Block& body) {
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
  std::vector<std::uint32_t> code_out;

 private:
  // ---- emission ---------------------------------------------------------------------------------
  std::size_t emit(std::uint32_t word, int line) {
    code_.push_back(word);
    lines_.push_back(line);
    return code_.size() - 1;
  }
  void emit_number(unsigned reg, double v, int line) {
    emit(encode_ad(Op::kLoadN, reg, 0), line);
    emit_constant(v);
  }
  std::size_t emit_jump(Op op, unsigned a, int line) { return emit(encode_ad(op, a, 0), line); }
  // The two words of a constant operand, after its instruction (or its branch offset).
  void emit_constant(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, 8);
    emit(static_cast<std::uint32_t>(bits), 0);
    emit(static_cast<std::uint32_t>(bits >> 32), 0);
  }
  // A jump reaches +-32767 words; a longer one marks the function too long (reported by run()).
  void patch(std::size_t at, std::size_t target) {
    const long d = static_cast<long>(target) - static_cast<long>(at) - 1;
    if (raw_offsets_.count(at)) {  // the offset word of a compare-and-branch: 32 bits
      code_[at] = static_cast<std::uint32_t>(static_cast<std::int32_t>(d));
      return;
    }
    if (d < -32768 || d > 32767) too_long_ = true;
    code_[at] = encode_ad(op_of(code_[at]), a_of(code_[at]), static_cast<int>(d));
  }
  std::set<std::size_t> raw_offsets_;
  Error fail(Pos p, const std::string& m) const {
    return make_error(file_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.col) + ": " + m);
  }
  Result<unsigned> temp(Pos p) {
    if (next_reg_ >= kMaxRegisters)
      return fail(p, "expression too complex (more than " + std::to_string(kMaxRegisters) + " registers)");
    max_reg_ = std::max(max_reg_, next_reg_);
    return static_cast<unsigned>(next_reg_++);
  }
  // Temporaries are released in stack order by restoring the mark.
  int mark() const { return next_reg_; }
  void release(int m) { next_reg_ = m; }

  Type type_of(const Expr& e) const {
    auto it = c_.types.find(&e);
    return it == c_.types.end() ? Type::kNumber : it->second;
  }
  static bool never_false(Type t) { return t != Type::kBoolean; }
  // Values compared by identity: arrays and records (strings compare by their bytes, the rest by value).
  static bool is_array(Type t) {
    return t == Type::kNumberArray || t == Type::kBooleanArray || t == Type::kArray || t == Type::kRecord;
  }
  static ArgKind arg_kind_of(Type t) {
    return t == Type::kString ? ArgKind::kString : t == Type::kBoolean ? ArgKind::kBoolean : ArgKind::kNumber;
  }
  // A string's length word and its bytes, four a word, after a PUTS or LOADS.
  void emit_string_bytes(const std::string& text) {
    emit(static_cast<std::uint32_t>(text.size()), 0);
    for (std::size_t k = 0; k < text.size(); k += 4) {
      std::uint32_t w = 0;
      for (std::size_t j = 0; j < 4 && k + j < text.size(); ++j)
        w |= std::uint32_t(static_cast<unsigned char>(text[k + j])) << (8 * j);
      emit(w, 0);
    }
  }

  // ---- statements -------------------------------------------------------------------------------
  Status block(const Block& b) {
    for (const auto& st : b) KILN_TRY(statement(*st));
    return {};
  }

  void store(const VarRef& ref, unsigned reg, int line) {
    switch (ref.kind) {
      case VarRef::kLocal:
        if (static_cast<unsigned>(ref.slot) != reg) emit(encode_abc(Op::kMove, ref.slot, reg, 0), line);
        break;
      case VarRef::kModule: emit(encode_ad(Op::kSetMod, reg, ref.slot), line); break;
      case VarRef::kCell: emit(encode_abc(Op::kSetCell, ref.slot, reg, 0), line); break;
      case VarRef::kUpvalue: emit(encode_abc(Op::kSetUp, self_register(), ref.slot, reg), line); break;
    }
  }
  // A new variable `ref` = register reg: a captured one gets a new cell (each iteration of a loop
  // makes a new variable, and a closure made in it keeps that iteration's).
  void declare(const VarRef& ref, unsigned reg, int line) {
    if (ref.kind == VarRef::kCell) emit(encode_abc(Op::kNewCell, ref.slot, is_reference(ref.type) ? 1 : 0, 0), line);
    store(ref, reg, line);
  }
  // Where a closure finds itself: the register after its parameters (the caller puts it there).
  unsigned self_register() const { return static_cast<unsigned>(c_.functions[index_].params.size()); }
  // function d as a value: its closure, with the cells of its upvalues; a function that captures
  // nothing has one value for all (LOADF).
  void closure(unsigned dst, int d, int line) {
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

  Status statement(const Stmt& st) {
    line_ = st.pos.line;
    const int m = mark();
    Status s = statement_inner(st);
    release(m);
    return s;
  }

  // `targets = values`, with Lua's order of evaluation and stores.
  Status assign(const Stmt& st) {
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

  Status statement_inner(const Stmt& st) {
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

  static bool writes_last(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kNumber:
      case ExprKind::kBool:
      case ExprKind::kName:
      case ExprKind::kField:
      case ExprKind::kIndex:
      case ExprKind::kUnary: return true;
      case ExprKind::kBinary: return e.binop != BinOp::kAnd && e.binop != BinOp::kOr;
      default: return false;  // calls, tables and and/or write their destination early
    }
  }

  Status close_breaks() {
    for (std::size_t j : breaks_.back()) patch(j, code_.size());
    breaks_.pop_back();
    return {};
  }
  bool too_long_ = false;
  bool tail_call_ = false;  // the call about to be made is a return's value

  // Emits the test of `cond`; `jumps_if_false` gets the jumps to patch to where a false condition
  // goes (none when the condition can never be false: numbers and arrays are true in Lua). `a and b`
  // tests a, then b, each branching on its own: no boolean is made of it.
  Status condition(const Expr& cond, std::vector<std::size_t>& jumps_if_false) {
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

  // ---- expressions ------------------------------------------------------------------------------
  // A variable Lua keeps in a register of the running function: the chunk's locals while compiling
  // the chunk, a function's parameters and locals in that function.
  bool lua_register(const Expr& e) const {
    if (e.kind != ExprKind::kName || c_.function_refs.count(&e)) return false;
    const VarRef& ref = c_.names.at(&e);
    return ref.kind == VarRef::kLocal || index_ == 0;
  }

  // The register holding a function local, used in place: no copy, and read when the operator
  // runs — exactly when Lua reads a register operand.
  std::optional<unsigned> local_register(const Expr& e) const {
    if (e.kind != ExprKind::kName || c_.function_refs.count(&e)) return std::nullopt;
    const VarRef& ref = c_.names.at(&e);
    if (ref.kind != VarRef::kLocal) return std::nullopt;
    return static_cast<unsigned>(ref.slot);
  }

  // The register holding `x`'s value: a function local in place, else a temporary it is computed into.
  Status operand_register(const Expr& x, unsigned& r) {
    if (auto local = local_register(x)) {
      r = *local;
      return {};
    }
    auto t = temp(x.pos);
    if (!t) return t.error();
    r = *t;
    return expr_to(x, r);
  }

  // Lua reads a register operand when the operator runs, after the right operand: in `x + f()`,
  // a change f makes to x is seen. Kiln's function locals are used in place (the same thing);
  // the chunk's locals, which Lua keeps in registers too, are read after the right operand.
  Status operands(const Expr& e, unsigned& ra, unsigned& rb, bool lua_order = false) {
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

  Status expr_to(const Expr& e, unsigned dst) {
    const int m = mark();
    Status s = expr_inner(e, dst);
    release(m);
    return s;
  }

  Status expr_inner(const Expr& e, unsigned dst) {
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

  Status binary(const Expr& e, unsigned dst) {
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

  // Lua's and/or return an operand, not a boolean; numbers and arrays are never false.
  // a .. b .. c: every operand left to right into consecutive registers, then one STR joins them
  // (as Lua's CONCAT does); past kMaxStringArgs operands, the joined part is the first of the next.
  static void concat_operands(const Expr& e, std::vector<const Expr*>& out) {
    if (e.kind == ExprKind::kBinary && e.binop == BinOp::kConcat) {
      concat_operands(*e.a, out);
      concat_operands(*e.b, out);
    } else {
      out.push_back(&e);
    }
  }
  Status concat(const Expr& e, unsigned dst) {
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

  Status logical(const Expr& e, unsigned dst) {
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

  Status call(const Expr& e, unsigned dst, bool want_value) {
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

  const CheckedScript& c_;
  int index_;
  const std::string& file_;
  int next_reg_;
  int locals_end_;  // registers below are named locals; temporaries start here
  int max_reg_ = 0;
  int line_ = 0;
  std::vector<std::uint32_t> code_;
  std::vector<int> lines_;
  std::vector<std::vector<std::size_t>> breaks_;
};

}  // namespace

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
