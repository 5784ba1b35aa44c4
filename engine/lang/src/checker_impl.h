#pragma once
// The checker's state and steps (check_script in kiln/lang/checker.h), private to engine/lang. Its
// steps are split by what they check: statements and declarations (checker.cpp), expressions and
// records (checker_expressions.cpp), calls and the libraries (checker_calls.cpp), captured
// variables and closures (checker_closures.cpp).
//
// Thread-safety: one Checker per check_script call, on its thread.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kiln/lang/checker.h"
#include "type_solver.h"

namespace kiln::lang::detail {

using K = TypeSolver::Kind;

// The math functions: name -> (function, arity; -1: one or more).
const std::map<std::string, std::pair<MathFn, int>>& math_functions();

struct Symbol {
  enum Kind { kVar, kFunction } kind = kVar;
  bool in_chunk_loop = false;  // a chunk local declared inside a loop: a fresh variable per iteration in Lua
  VarRef::Kind storage = VarRef::kLocal;
  int slot = 0;
  int tv = 0;
  int function = 0;  // kFunction: its index; kVar kLocal: the function that owns the frame
  int var = -1;      // the variable (a local function's: its closure, when it captures)
  Pos pos;
};

// A variable of the script, and whether a closure captures it (it then lives in a cell).
struct Var {
  int owner = 0;  // the function whose frame (or the chunk's module slots) holds it
  VarRef::Kind storage = VarRef::kLocal;
  int slot = 0;
  int tv = 0;
  bool captured = false;
};

constexpr int kMaxLocals = 200;  // as Lua 5.1: registers are 8-bit fields, temporaries need room
// A local of a loop of the chunk lives in the chunk's frame (no function may see it) while the frame
// has room; past this many registers it becomes a module variable like the chunk's other locals.
constexpr int kMaxChunkLoopRegisters = 150;

struct FunctionState {
  int index;
  std::vector<int> param_tvs;
  int result_tv;
  std::optional<Pos> value_return, bare_return;
  int parent = -1;            // the function it is written in (local and anonymous functions)
  bool global = false;        // a global function: it captures nothing
  std::vector<int> upvalues;  // the variables of enclosing functions it captures
  std::vector<int> param_vars;
};

class Checker {
 public:
  Checker(const Script& s, const std::vector<HostSignature>& host) : script_(s), host_(host) {}

  Result<CheckedScript> run();

 private:
  // ---- errors, scopes -------------------------------------------------------------------------
  Error fail(Pos p, const std::string& m) const {
    return make_error(script_.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.col) + ": " + m);
  }
  static std::string at(Pos p) { return std::to_string(p.line) + ":" + std::to_string(p.col); }
  int cur_fn() const { return current_; }
  bool in_chunk() const { return current_ == 0; }

  const Symbol* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto f = it->find(name); f != it->end()) return &f->second;
    return nullptr;
  }

  VarRef declare_var(const std::string& name, Pos pos, int tv);

  static bool is_library(const std::string& name) {
    return name == "print" || name == "math" || name == "engine" || name == "string" || name == "tostring" ||
           name == "tonumber";
  }

  // ---- pass 1: global functions are visible everywhere (mutual recursion) ------------------------
  Status declare_globals(const Block& b);

  static std::vector<const Block*> children(const Stmt& st);

  int new_function(const FunctionDef& f, const Stmt* st);

  // ---- statements --------------------------------------------------------------------------------
  Status block(const Block& b, bool new_scope = true);

  Status statement(const Stmt& st);

  Status loop_body(const Block& body);

  Status return_stat(const Stmt& st);

  Status function_stat(const Stmt& st);

  int function_type(int index) { return solver_.function_of(states_[index].param_tvs, states_[index].result_tv); }

  // The parameters and body of function `index`, checked in its own scope.
  Status function_body(const FunctionDef& f, int index);

  static bool always_returns(const Block& b);

  Result<int> assign_target(const Expr& e);

  // A variable used by the current function: a local of an enclosing function is captured.
  Status reach(const Symbol& s, const Expr& e);

  // Function `user` reaches variable `var` of an enclosing function: it and every function between
  // them keep it as an upvalue, and it lives in a cell.
  Status capture(int var, int user, Pos pos, const std::string& name);

  // ---- expressions -------------------------------------------------------------------------------
  // An expression used as a value: anything but a call of a function that returns nothing.
  Result<int> value(const Expr& e);

  // Truthiness and printing depend on the type (a number is always true): a value whose type the
  // script never fixes cannot be used there.
  void require_known(int tv, Pos pos, const char* use);

  // A condition: any type, tested for truth.
  Result<int> condition(const Expr& e);

  int record(const Expr& e, int tv) {
    expr_tvs_.push_back({&e, tv});
    return tv;
  }

  Result<int> expr(const Expr& e);

  // {x = a, y = b}: a record whose type is its field names and their values' types.
  Result<int> record_literal(const Expr& e);

  // r.name: a record's field. When r's type is not known yet (a parameter typed by its callers),
  // the field is looked up once it is (finish()).
  Result<int> field(const Expr& e);

  struct PendingField {
    const Expr* e;
    int object;
    int result;
    bool done;
  };
  // Types the field once its record's type is known; `final`: an unknown type is an error.
  Status resolve_field(PendingField& p, bool final);
  // Fields whose records got their types later, until nothing changes.
  Status resolve_fields(bool final);

  // A script function named as a value: its type shares the function's own parameter and result
  // variables, so what a caller does with the value types the function.
  Result<int> function_value(const Expr& e, int fn);

  Result<int> index(const Expr& e);

  Result<int> binary(const Expr& e);

  // A call, by what is called: print, a script function, a function value, math.*, engine.*.
  Result<int> call(const Expr& e);

  // The type variables of a call's arguments; print also takes string literals.
  Result<std::vector<int>> call_args(const Expr& e, bool print = false);

  Result<int> print_call(const Expr& e);

  Result<int> script_call(const Expr& e, int fn);

  // A function value, typed by its arguments; `shown` names the callee in messages.
  Result<int> indirect_call(const Expr& e, const std::string& shown);

  // obj:f(...): a record's field f called with obj first (Lua's methods), or string.f(obj, ...)
  // for anything else. The object's type must be known where the call is written to be a record.
  Result<int> method_call(const Expr& e);

  // tostring, tonumber and string.*, `name` as the script spells it (the method form s:f(...) is
  // string.f(s, ...); `first`: the type of its first argument, checked already).
  Result<int> string_call(const Expr& e, const std::string& name, std::optional<int> first = std::nullopt);

  // A literal pattern of string.format against its arguments: the conversions Lua would refuse,
  // and a number or string where the pattern asks for the other.
  Status format_check(const Expr& e, const std::vector<int>& args);

  Result<int> math_call(const Expr& e);

  Result<int> host_call(const Expr& e);

  // ---- closures ----------------------------------------------------------------------------------
  // A local function that captures is a closure: where it is named, its variable (which holds the
  // closure) is read instead, and reaching that variable may make another function a closure.
  Status close_functions();

  // Where variable `var` is, seen from function `user`.
  VarRef ref_of(int var, int user);

  // ---- the end: deferred checks and final types -------------------------------------------------
  Status finish();

  const Script& script_;
  const std::vector<HostSignature>& host_;
  CheckedScript out_;
  TypeSolver solver_;
  std::vector<FunctionState> states_;
  std::map<std::string, int> globals_;
  std::vector<std::map<std::string, Symbol>> scopes_;
  std::vector<int> loop_depth_;
  int current_ = 0;
  std::optional<Pos> too_many_locals_;
  std::vector<Var> vars_;
  int last_var_ = -1;                                   // the variable declare_var made last
  std::vector<std::pair<VarRef*, int>> pending_decls_;  // declared variables: their VarRef, from the var
  struct VarUse {
    const Expr* e;
    int var;
    int user;  // the function the use is in
  };
  std::vector<VarUse> var_uses_;
  struct FunctionUse {  // a local function named: called (call) or taken as a value
    const Expr* e;
    const Expr* call;
    int function;
    int var;
    int user;
    bool closed = false;  // its closure variable is reached
  };
  std::vector<FunctionUse> function_uses_;
  std::vector<std::pair<const Expr*, int>> expr_tvs_;
  std::vector<std::function<Status()>> deferred_;
  std::vector<std::function<void()>> defaults_;
  std::vector<PendingField> pending_fields_;
  std::vector<std::pair<const Expr*, int>> record_literals_;  // types a script leaves open, fixed before deferred_ runs
};

}  // namespace kiln::lang::detail
