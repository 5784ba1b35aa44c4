#pragma once
// The code generator's per-function emitter (compile_program in kiln/lang/codegen.h), private to
// engine/lang. Its steps are split by what they emit: statements and conditions (codegen.cpp),
// expressions (codegen_expressions.cpp), calls (codegen_calls.cpp).
//
// Thread-safety: one emitter per function compiled, on the compiling thread.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kiln/jit/bytecode.h"
#include "kiln/lang/codegen.h"

namespace kiln::lang::detail {
using namespace jit;  // the bytecode it writes

constexpr int kMaxRegisters = 250;

class FunctionEmitter {
 public:
  FunctionEmitter(const CheckedScript& checked, int function, const std::string& file)
      : c_(checked),
        index_(function),
        file_(file),
        next_reg_(checked.functions[function].frame_slots),
        locals_end_(checked.functions[function].frame_slots) {}

  Result<FunctionCode> run(const Block& body);
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
  Status block(const Block& b);

  void store(const VarRef& ref, unsigned reg, int line);
  // A new variable `ref` = register reg: a captured one gets a new cell (each iteration of a loop
  // makes a new variable, and a closure made in it keeps that iteration's).
  void declare(const VarRef& ref, unsigned reg, int line);
  // Where a closure finds itself: the register after its parameters (the caller puts it there).
  unsigned self_register() const { return static_cast<unsigned>(c_.functions[index_].params.size()); }
  // function d as a value: its closure, with the cells of its upvalues; a function that captures
  // nothing has one value for all (LOADF).
  void closure(unsigned dst, int d, int line);

  Status statement(const Stmt& st);

  // `targets = values`, with Lua's order of evaluation and stores.
  Status assign(const Stmt& st);

  Status statement_inner(const Stmt& st);

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

  Status close_breaks();
  bool too_long_ = false;
  bool tail_call_ = false;  // the call about to be made is a return's value

  // Emits the test of `cond`; `jumps_if_false` gets the jumps to patch to where a false condition
  // goes (none when the condition can never be false: numbers and arrays are true in Lua). `a and b`
  // tests a, then b, each branching on its own: no boolean is made of it.
  Status condition(const Expr& cond, std::vector<std::size_t>& jumps_if_false);

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
  Status operand_register(const Expr& x, unsigned& r);

  // Lua reads a register operand when the operator runs, after the right operand: in `x + f()`,
  // a change f makes to x is seen. Kiln's function locals are used in place (the same thing);
  // the chunk's locals, which Lua keeps in registers too, are read after the right operand.
  Status operands(const Expr& e, unsigned& ra, unsigned& rb, bool lua_order = false);

  Status expr_to(const Expr& e, unsigned dst);

  Status expr_inner(const Expr& e, unsigned dst);

  Status binary(const Expr& e, unsigned dst);

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
  Status concat(const Expr& e, unsigned dst);

  Status logical(const Expr& e, unsigned dst);

  Status call(const Expr& e, unsigned dst, bool want_value);

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

}  // namespace kiln::lang::detail
