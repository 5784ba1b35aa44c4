#include "kiln/lang/checker.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "kiln/core/text.h"
#include "kiln/jit/string_format.h"

#include "type_solver.h"

namespace kiln::lang {
namespace {

using K = TypeSolver::Kind;

const std::map<std::string, std::pair<MathFn, int>>& math_functions() {  // name -> (fn, arity; -1: one or more)
  static const std::map<std::string, std::pair<MathFn, int>> m = {
      {"abs", {MathFn::kAbs, 1}},     {"floor", {MathFn::kFloor, 1}}, {"ceil", {MathFn::kCeil, 1}},
      {"sqrt", {MathFn::kSqrt, 1}},   {"sin", {MathFn::kSin, 1}},     {"cos", {MathFn::kCos, 1}},
      {"tan", {MathFn::kTan, 1}},     {"asin", {MathFn::kAsin, 1}},   {"acos", {MathFn::kAcos, 1}},
      {"atan", {MathFn::kAtan, 1}},   {"exp", {MathFn::kExp, 1}},     {"log", {MathFn::kLog, 1}},
      {"log10", {MathFn::kLog10, 1}}, {"fmod", {MathFn::kFmod, 2}},   {"pow", {MathFn::kPow, 2}},
      {"atan2", {MathFn::kAtan2, 2}}, {"min", {MathFn::kMin, -1}},    {"max", {MathFn::kMax, -1}}};
  return m;
}

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

  Result<CheckedScript> run() {
    out_.script = &script_;
    out_.functions.push_back({nullptr, "main chunk", {}, Type::kVoid, 0});
    states_.push_back({0, {}, solver_.fresh(K::kVoid), {}, {}});
    KILN_TRY(declare_globals(script_.body));
    scopes_.emplace_back();
    loop_depth_.push_back(0);
    KILN_TRY(block(script_.body, false));
    KILN_TRY(finish());
    return std::move(out_);
  }

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

  VarRef declare_var(const std::string& name, Pos pos, int tv) {
    Symbol s;
    s.kind = Symbol::kVar;
    s.tv = tv;
    s.pos = pos;
    if (in_chunk() && loop_depth_.back() > 0 && out_.functions[0].frame_slots < kMaxChunkLoopRegisters) {
      s.storage = VarRef::kLocal;  // a register: a loop of the chunk runs as fast as a function's
      s.slot = out_.functions[0].frame_slots++;
      s.function = 0;
      s.in_chunk_loop = true;
    } else if (in_chunk()) {
      s.storage = VarRef::kModule;
      s.slot = out_.module_slots++;
      s.in_chunk_loop = loop_depth_.back() > 0;
    } else {
      s.storage = VarRef::kLocal;
      s.slot = out_.functions[cur_fn()].frame_slots++;
      s.function = cur_fn();
      if (s.slot >= kMaxLocals) too_many_locals_ = pos;
    }
    s.var = static_cast<int>(vars_.size());
    vars_.push_back({s.storage == VarRef::kLocal ? s.function : 0, s.storage, s.slot, tv, false});
    last_var_ = s.var;
    scopes_.back()[name] = s;
    return {s.storage, s.slot, Type::kNumber};
  }

  static bool is_library(const std::string& name) {
    return name == "print" || name == "math" || name == "engine" || name == "string" || name == "tostring" ||
           name == "tonumber";
  }

  // ---- pass 1: global functions are visible everywhere (mutual recursion) ------------------------
  Status declare_globals(const Block& b) {
    for (const auto& st : b) {
      if (st->kind == StmtKind::kFunction && !st->function->is_local) {
        const FunctionDef& f = *st->function;
        if (auto it = globals_.find(f.name); it != globals_.end())
          return fail(f.pos, "function '" + f.name + "' is defined twice (first at " +
                                 at(out_.functions[it->second].def->pos) + ")");
        if (is_library(f.name)) return fail(f.pos, "'" + f.name + "' is a library name and cannot be redefined");
        globals_[f.name] = new_function(f, st.get());
      }
      for (const Block* inner : children(*st)) KILN_TRY(declare_globals(*inner));
    }
    return {};
  }

  static std::vector<const Block*> children(const Stmt& st) {
    std::vector<const Block*> out;
    if (st.kind == StmtKind::kFunction) out.push_back(&st.function->body);
    for (const auto& b : st.blocks) out.push_back(&b);
    if (st.kind == StmtKind::kDo || st.kind == StmtKind::kWhile || st.kind == StmtKind::kRepeat ||
        st.kind == StmtKind::kNumericFor)
      out.push_back(&st.body);
    return out;
  }

  int new_function(const FunctionDef& f, const Stmt* st) {
    const int index = static_cast<int>(out_.functions.size());
    out_.functions.push_back({&f, f.name, {}, Type::kVoid, 0});
    FunctionState fs{index, {}, solver_.fresh(), {}, {}};
    for (std::size_t i = 0; i < f.params.size(); ++i) fs.param_tvs.push_back(solver_.fresh());
    fs.global = st && !f.is_local;
    states_.push_back(fs);
    if (st) out_.function_index[st] = index;
    return index;
  }

  // ---- statements --------------------------------------------------------------------------------
  Status block(const Block& b, bool new_scope = true) {
    if (new_scope) scopes_.emplace_back();
    for (const auto& st : b) KILN_TRY(statement(*st));
    if (new_scope) scopes_.pop_back();
    return {};
  }

  Status statement(const Stmt& st) {
    switch (st.kind) {
      case StmtKind::kLocal: {
        if (st.values.size() != st.names.size())
          return fail(st.pos, st.values.empty()
                                  ? "local '" + st.names[0] + "' needs a value (nil is outside Kiln's script subset)"
                                  : "'local' declares " + std::to_string(st.names.size()) + " names but gives " +
                                        std::to_string(st.values.size()) + " values");
        std::vector<int> tvs;
        for (const auto& v : st.values) {  // evaluated before the new names are in scope, as in Lua
          auto tv = value(*v);
          if (!tv) return tv.error();
          tvs.push_back(*tv);
        }
        auto& refs = out_.declared[&st];
        for (std::size_t i = 0; i < st.names.size(); ++i)
          refs.push_back(declare_var(st.names[i], st.name_pos[i], tvs[i]));
        for (std::size_t i = 0; i < refs.size(); ++i)  // stable now
          pending_decls_.push_back({&refs[i], static_cast<int>(vars_.size() - refs.size() + i)});
        return {};
      }
      case StmtKind::kAssign: {
        if (st.values.size() != st.targets.size())
          return fail(st.pos, "assignment of " + std::to_string(st.values.size()) + " values to " +
                                  std::to_string(st.targets.size()) + " targets");
        for (std::size_t i = 0; i < st.targets.size(); ++i) {
          auto target = assign_target(*st.targets[i]);
          if (!target) return target.error();
          auto v = value(*st.values[i]);
          if (!v) return v.error();
          if (!solver_.unify(*target, *v))
            return fail(st.values[i]->pos,
                        "type mismatch: assigning " + solver_.describe(*v) + " to " + solver_.describe(*target));
        }
        return {};
      }
      case StmtKind::kCall: {
        auto c = call(*st.expr);
        return c ? Status{} : Status(c.error());
      }
      case StmtKind::kDo: return block(st.body);
      case StmtKind::kWhile: {
        auto c = condition(*st.expr);
        if (!c) return c.error();
        return loop_body(st.body);
      }
      case StmtKind::kRepeat: {
        scopes_.emplace_back();  // the condition sees the body's locals
        ++loop_depth_.back();
        KILN_TRY(block(st.body, false));
        --loop_depth_.back();
        auto c = condition(*st.expr);
        scopes_.pop_back();
        return c ? Status{} : Status(c.error());
      }
      case StmtKind::kIf: {
        for (std::size_t i = 0; i < st.blocks.size(); ++i) {
          if (i < st.conds.size()) {
            auto c = condition(*st.conds[i]);
            if (!c) return c.error();
          }
          KILN_TRY(block(st.blocks[i]));
        }
        return {};
      }
      case StmtKind::kNumericFor: {
        for (const auto& v : st.values) {
          auto tv = value(*v);
          if (!tv) return tv.error();
          if (!solver_.unify(*tv, solver_.fresh(K::kNum)))
            return fail(v->pos, "a for loop's start, limit and step must be numbers, not " + solver_.describe(*tv));
        }
        scopes_.emplace_back();
        ++loop_depth_.back();  // before the variable: it is a new one in every iteration
        auto& refs = out_.declared[&st];
        refs.push_back(declare_var(st.names[0], st.name_pos[0], solver_.fresh(K::kNum)));
        pending_decls_.push_back({&refs.back(), last_var_});
        auto s = block(st.body, false);
        --loop_depth_.back();
        scopes_.pop_back();
        return s;
      }
      case StmtKind::kBreak:
        if (loop_depth_.back() == 0) return fail(st.pos, "'break' outside a loop");
        return {};
      case StmtKind::kReturn: return return_stat(st);
      case StmtKind::kFunction: return function_stat(st);
    }
    return {};
  }

  Status loop_body(const Block& body) {
    ++loop_depth_.back();
    auto s = block(body);
    --loop_depth_.back();
    return s;
  }

  Status return_stat(const Stmt& st) {
    if (st.values.empty()) {
      FunctionState& fs = states_[cur_fn()];
      if (!fs.bare_return) fs.bare_return = st.pos;
      return {};
    }
    if (in_chunk()) return fail(st.pos, "the chunk cannot return a value in Kiln's script subset");
    auto v = value(*st.values[0]);
    if (!v) return v.error();
    FunctionState& fs = states_[cur_fn()];  // after the value: an anonymous function in it adds states
    if (!solver_.unify(fs.result_tv, *v))
      return fail(st.values[0]->pos, "function '" + out_.functions[cur_fn()].name + "' returns " +
                                         solver_.describe(*v) + " here but " + solver_.describe(fs.result_tv) +
                                         " elsewhere");
    if (!fs.value_return) fs.value_return = st.pos;
    return {};
  }

  Status function_stat(const Stmt& st) {
    const FunctionDef& f = *st.function;
    int index;
    if (f.is_local) {
      index = new_function(f, &st);
      states_[index].parent = current_;
      // Its variable holds its closure when it captures locals; declared before its body, which
      // may call it (Lua's local function).
      auto& refs = out_.declared[&st];
      refs.push_back(declare_var(f.name, f.pos, function_type(index)));
      pending_decls_.push_back({&refs.back(), last_var_});
      Symbol& s = scopes_.back()[f.name];
      s.kind = Symbol::kFunction;
      s.function = index;
    } else {
      if (const Symbol* local = lookup(f.name))
        return fail(f.pos, "'function " + f.name + "' would assign the local '" + f.name + "' declared at " +
                               at(local->pos) + "; redefining a local is outside Kiln's script subset");
      if (!globals_.count(f.name))
        return fail(f.pos, "global function '" + f.name + "' inside an anonymous function: make it local");
      index = globals_.at(f.name);
    }
    return function_body(f, index);
  }

  int function_type(int index) { return solver_.function_of(states_[index].param_tvs, states_[index].result_tv); }

  // The parameters and body of function `index`, checked in its own scope.
  Status function_body(const FunctionDef& f, int index) {
    const int saved = current_;
    current_ = index;
    scopes_.emplace_back();
    loop_depth_.push_back(0);
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j)
        if (f.params[j] == f.params[i]) return fail(f.param_pos[i], "duplicate parameter '" + f.params[i] + "'");
      declare_var(f.params[i], f.param_pos[i], states_[index].param_tvs[i]);
      states_[index].param_vars.push_back(last_var_);
    }
    if (!states_[index].global) ++out_.functions[index].frame_slots;  // its closure, when it is one
    auto s = block(f.body, false);
    loop_depth_.pop_back();
    scopes_.pop_back();
    current_ = saved;
    if (!s) return s;
    FunctionState& fs = states_[index];
    if (fs.value_return && fs.bare_return)
      return fail(*fs.bare_return, "function '" + f.name + "' returns a value at " + at(*fs.value_return) +
                                       " but not here (nil is outside Kiln's script subset)");
    if (fs.value_return && !always_returns(f.body))
      return fail(f.pos, "function '" + f.name + "' may reach its end without returning a value");
    if (!fs.value_return && !solver_.unify(fs.result_tv, solver_.fresh(K::kVoid)))
      return fail(f.pos, "function '" + f.name + "' returns no value but a call of it is used as " +
                             solver_.describe(fs.result_tv));
    return {};
  }

  static bool always_returns(const Block& b) {
    if (b.empty()) return false;
    const Stmt& last = *b.back();
    if (last.kind == StmtKind::kReturn) return true;
    if (last.kind == StmtKind::kDo) return always_returns(last.body);
    if (last.kind == StmtKind::kIf && last.blocks.size() > last.conds.size()) {
      for (const auto& branch : last.blocks)
        if (!always_returns(branch)) return false;
      return true;
    }
    return false;
  }

  Result<int> assign_target(const Expr& e) {
    if (e.kind == ExprKind::kIndex) return index(e);
    if (e.kind == ExprKind::kField) {
      if (e.a->kind == ExprKind::kName && is_library(e.a->text) && !lookup(e.a->text))
        return fail(e.pos, "cannot assign to library member '" + e.a->text + "." + e.text + "'");
      return field(e);
    }
    const Symbol* s = lookup(e.text);
    if (!s) {
      if (globals_.count(e.text) || is_library(e.text))
        return fail(e.pos, "cannot assign to function '" + e.text + "'");
      return fail(e.pos, "assignment to undeclared global '" + e.text + "' (declare it with 'local')");
    }
    if (s->kind == Symbol::kFunction) return fail(e.pos, "cannot assign to function '" + e.text + "'");
    KILN_TRY(reach(*s, e));
    var_uses_.push_back({&e, s->var, cur_fn()});
    return s->tv;
  }

  // A variable used by the current function: a local of an enclosing function is captured.
  Status reach(const Symbol& s, const Expr& e) {
    if (s.storage == VarRef::kModule) {
      if (s.in_chunk_loop && !in_chunk())
        return fail(e.pos, "'" + e.text +
                               "' is a local of a loop of the chunk kept outside its registers (the chunk uses too "
                               "many): closures over it are outside Kiln's script subset");
      return {};
    }
    if (s.function == cur_fn()) return {};
    return capture(s.var, cur_fn(), e.pos, e.text);
  }

  // Function `user` reaches variable `var` of an enclosing function: it and every function between
  // them keep it as an upvalue, and it lives in a cell.
  Status capture(int var, int user, Pos pos, const std::string& name) {
    const int owner = vars_[static_cast<std::size_t>(var)].owner;
    for (int g = user; g != owner; g = states_[static_cast<std::size_t>(g)].parent) {
      if (g < 0 || states_[static_cast<std::size_t>(g)].global)
        return fail(pos, "'" + name + "' is a local of the enclosing function '" + out_.functions[owner].name +
                             "': a global function cannot capture it (make the function local)");
      auto& up = states_[static_cast<std::size_t>(g)].upvalues;
      if (std::find(up.begin(), up.end(), var) == up.end()) up.push_back(var);
    }
    vars_[static_cast<std::size_t>(var)].captured = true;
    return {};
  }

  // ---- expressions -------------------------------------------------------------------------------
  // An expression used as a value: anything but a call of a function that returns nothing.
  Result<int> value(const Expr& e) {
    auto tv = expr(e);
    if (!tv) return tv;
    deferred_.push_back({[this, tv = *tv, pos = e.pos]() -> Status {
      if (solver_.kind(tv) == K::kVoid) return fail(pos, "this call returns no value");
      return {};
    }});
    return tv;
  }

  // Truthiness and printing depend on the type (a number is always true): a value whose type the
  // script never fixes cannot be used there.
  void require_known(int tv, Pos pos, const char* use) {
    deferred_.push_back({[this, tv, pos, use]() -> Status {
      if (solver_.kind(tv) == K::kUnknown)
        return fail(pos, std::string("the type of this value is never fixed by the script, so it cannot be ") + use +
                             " (compare it with a number or a boolean to fix it)");
      return {};
    }});
  }

  // A condition: any type, tested for truth.
  Result<int> condition(const Expr& e) {
    auto tv = value(e);
    if (tv) require_known(*tv, e.pos, "tested for truth");
    return tv;
  }

  int record(const Expr& e, int tv) {
    expr_tvs_.push_back({&e, tv});
    return tv;
  }

  Result<int> expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kNumber: return record(e, solver_.fresh(K::kNum));
      case ExprKind::kBool: return record(e, solver_.fresh(K::kBool));
      case ExprKind::kString: return record(e, solver_.fresh(K::kStr));
      case ExprKind::kName: {
        const Symbol* s = lookup(e.text);
        if (!s && globals_.count(e.text)) return function_value(e, globals_.at(e.text));
        if (!s) {
          if (is_library(e.text)) return fail(e.pos, "library '" + e.text + "' used as a value");
          return fail(e.pos, "unknown name '" + e.text + "'");
        }
        if (s->kind == Symbol::kFunction) {
          function_uses_.push_back({&e, nullptr, s->function, s->var, cur_fn()});
          return function_value(e, s->function);
        }
        KILN_TRY(reach(*s, e));
        var_uses_.push_back({&e, s->var, cur_fn()});
        return record(e, s->tv);
      }
      case ExprKind::kFunction: {  // an anonymous function: a closure of the current function
        const int index = new_function(*e.function, nullptr);
        states_[index].parent = current_;
        out_.function_exprs[&e] = index;
        KILN_TRY(function_body(*e.function, index));
        return record(e, function_type(index));
      }
      case ExprKind::kField: {
        if (e.a->kind == ExprKind::kName && e.a->text == "math" && !lookup("math")) {
          if (e.text == "pi" || e.text == "huge") return record(e, solver_.fresh(K::kNum));
          if (math_functions().count(e.text))
            return fail(e.pos, "math." + e.text + " used as a value: functions are not values in Kiln's script subset");
          return fail(e.pos, "unknown math member '" + e.text + "'");
        }
        if (e.a->kind == ExprKind::kName && e.a->text == "string" && !lookup("string"))
          return fail(e.pos, "string." + e.text + " used as a value: functions are not values in Kiln's script subset");
        if (e.a->kind == ExprKind::kName && e.a->text == "engine" && !lookup("engine"))
          return fail(e.pos, "engine." + e.text + " used as a value: functions are not values in Kiln's script subset");
        return field(e);
      }
      case ExprKind::kCall: return call(e);
      case ExprKind::kIndex: return index(e);
      case ExprKind::kTable: {
        if (!e.keys.empty()) return record_literal(e);
        const int elem = solver_.fresh();
        for (const auto& item : e.items) {
          auto tv = value(*item);
          if (!tv) return tv;
          const std::string before = solver_.describe(elem);  // unify links what it compares, failing or not
          if (!solver_.unify(elem, *tv))
            return fail(item->pos, "array elements must have one type: " + solver_.describe(*tv) + " after " + before);
        }
        return record(e, solver_.array_of(elem));
      }
      case ExprKind::kUnary: {
        auto a = e.unop == UnOp::kNot ? condition(*e.a) : value(*e.a);
        if (!a) return a;
        if (e.unop == UnOp::kNot) return record(e, solver_.fresh(K::kBool));
        if (e.unop == UnOp::kLen) {
          const K k = solver_.kind(*a);
          if (k != K::kUnknown && k != K::kArray && k != K::kStr)
            return fail(e.pos, "'#' needs an array or a string, not " + solver_.describe(*a));
          // Still unknown here: decided when the script is checked, an array unless it is a string.
          defaults_.push_back([this, tv = *a] {
            if (solver_.kind(tv) == K::kUnknown) solver_.unify(tv, solver_.array_of(solver_.fresh()));
          });
          deferred_.push_back({[this, tv = *a, pos = e.pos]() -> Status {
            const K now = solver_.kind(tv);
            if (now != K::kArray && now != K::kStr)
              return fail(pos, "'#' needs an array or a string, not " + solver_.describe(tv));
            return {};
          }});
          return record(e, solver_.fresh(K::kNum));
        }
        if (!solver_.unify(*a, solver_.fresh(K::kNum)))
          return fail(e.pos, "unary '-' needs a number, not " + solver_.describe(*a));
        return record(e, solver_.fresh(K::kNum));
      }
      case ExprKind::kBinary: return binary(e);
    }
    return fail(e.pos, "unsupported expression");
  }

  // {x = a, y = b}: a record whose type is its field names and their values' types.
  Result<int> record_literal(const Expr& e) {
    if (e.keys.size() > jit::kMaxRecordFields)
      return fail(e.pos, "a record of " + std::to_string(e.keys.size()) + " fields (at most " +
                             std::to_string(jit::kMaxRecordFields) + ")");
    TypeSolver::Fields fields;
    for (std::size_t i = 0; i < e.items.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j)
        if (e.keys[j] == e.keys[i])
          return fail(e.key_pos[i], "field '" + e.keys[i] + "' is given twice (first at " + at(e.key_pos[j]) + ")");
      auto tv = value(*e.items[i]);
      if (!tv) return tv;
      fields.emplace_back(e.keys[i], *tv);
    }
    const int rec = solver_.record_of(fields);
    record_literals_.push_back({&e, rec});
    return record(e, rec);
  }

  // r.name: a record's field. When r's type is not known yet (a parameter typed by its callers),
  // the field is looked up once it is (finish()).
  Result<int> field(const Expr& e) {
    auto obj = value(*e.a);
    if (!obj) return obj;
    const int result = solver_.fresh();
    pending_fields_.push_back({&e, *obj, result, false});
    KILN_TRY(resolve_field(pending_fields_.back(), false));
    return record(e, result);
  }

  struct PendingField {
    const Expr* e;
    int object;
    int result;
    bool done;
  };
  // Types the field once its record's type is known; `final`: an unknown type is an error.
  Status resolve_field(PendingField& p, bool final) {
    if (p.done) return {};
    const K k = solver_.kind(p.object);
    if (k == K::kUnknown) {
      if (!final) return {};
      return fail(p.e->pos, "the type of this value is never fixed by the script, so its field '" + p.e->text +
                                "' cannot be reached (pass it a record)");
    }
    if (k != K::kRecord)
      return fail(p.e->pos, "'." + p.e->text + "' needs a record, not " + solver_.describe(p.object));
    const int index = solver_.field_index(p.object, p.e->text);
    if (index < 0) return fail(p.e->pos, solver_.describe(p.object) + " has no field '" + p.e->text + "'");
    const int field_tv = solver_.fields(p.object)[static_cast<std::size_t>(index)].second;
    const std::string before = solver_.describe(field_tv);
    if (!solver_.unify(p.result, field_tv))
      return fail(p.e->pos, "field '" + p.e->text + "' is " + before + ", not " + solver_.describe(p.result));
    p.done = true;
    return {};
  }
  // Fields whose records got their types later, until nothing changes.
  Status resolve_fields(bool final) {
    for (bool progress = true; progress;) {
      progress = false;
      for (auto& p : pending_fields_) {
        if (p.done) continue;
        KILN_TRY(resolve_field(p, false));
        progress = progress || p.done;
      }
    }
    if (final)
      for (auto& p : pending_fields_) KILN_TRY(resolve_field(p, true));
    return {};
  }

  // A script function named as a value: its type shares the function's own parameter and result
  // variables, so what a caller does with the value types the function.
  Result<int> function_value(const Expr& e, int fn) {
    out_.function_refs[&e] = fn;
    return record(e, solver_.function_of(states_[fn].param_tvs, states_[fn].result_tv));
  }

  Result<int> index(const Expr& e) {
    auto arr = value(*e.a);
    if (!arr) return arr;
    const int elem = solver_.fresh();
    if (!solver_.unify(*arr, solver_.array_of(elem)))
      return fail(e.pos, "indexing needs an array, not " + solver_.describe(*arr));
    auto i = value(*e.b);
    if (!i) return i;
    if (!solver_.unify(*i, solver_.fresh(K::kNum)))
      return fail(e.b->pos, "an array index must be a number, not " + solver_.describe(*i));
    return record(e, elem);
  }

  Result<int> binary(const Expr& e) {
    const BinOp op = e.binop;
    if (op == BinOp::kOr && e.a->kind == ExprKind::kBinary && e.a->binop == BinOp::kAnd) {
      // c and x or y: the conditional idiom.
      const Expr& conj = *e.a;
      auto c = condition(*conj.a);
      if (!c) return c;
      auto x = value(*conj.b);
      if (!x) return x;
      auto y = value(*e.b);
      if (!y) return y;
      if (!solver_.unify(*x, *y))
        return fail(e.pos, "'c and x or y' needs x and y of one type, not " + solver_.describe(*x) + " and " +
                               solver_.describe(*y));
      deferred_.push_back({[this, c = *c, x = *x, pos = e.pos]() -> Status {
        const K k = solver_.kind(x);
        if (k == K::kNum || k == K::kStr || k == K::kArray || k == K::kRecord || k == K::kFunc || k == K::kUnknown)
          return {};
        if (solver_.unify(c, x)) return {};  // all booleans: plain and/or
        return fail(pos, "'c and x or y' with a boolean x needs a boolean c");
      }});
      record(conj, *x);
      return record(e, *x);
    }
    auto a = value(*e.a);
    if (!a) return a;
    auto b = value(*e.b);
    if (!b) return b;
    const char* spelling[] = {"+", "-", "*", "/", "%", "^", "==", "~=", "<", "<=", ">", ">=", "and", "or", ".."};
    const std::string opname = spelling[static_cast<int>(op)];
    switch (op) {
      case BinOp::kAdd:
      case BinOp::kSub:
      case BinOp::kMul:
      case BinOp::kDiv:
      case BinOp::kMod:
      case BinOp::kPow: {
        for (int tv : {*a, *b})
          if (!solver_.unify(tv, solver_.fresh(K::kNum)))
            return fail(e.pos, "'" + opname + "' needs numbers, not " + solver_.describe(tv));
        return record(e, solver_.fresh(K::kNum));
      }
      case BinOp::kLt:
      case BinOp::kLe:
      case BinOp::kGt:
      case BinOp::kGe: {  // two numbers or two strings; numbers unless the script says otherwise
        if (!solver_.unify(*a, *b))
          return fail(e.pos, "'" + opname + "' compares " + solver_.describe(*a) + " with " + solver_.describe(*b));
        auto comparable = [this, tv = *a, opname, pos = e.pos]() -> Status {
          const K k = solver_.kind(tv);
          if (k != K::kNum && k != K::kStr && k != K::kUnknown)
            return fail(pos, "'" + opname + "' needs numbers or strings, not " + solver_.describe(tv));
          return {};
        };
        KILN_TRY(comparable());
        defaults_.push_back([this, tv = *a] {
          if (solver_.kind(tv) == K::kUnknown) solver_.unify(tv, solver_.fresh(K::kNum));
        });
        deferred_.push_back(comparable);
        return record(e, solver_.fresh(K::kBool));
      }
      case BinOp::kConcat:
        for (const auto& [tv, side] : {std::pair{*a, e.a.get()}, std::pair{*b, e.b.get()}}) {
          auto joinable = [this, tv = tv, pos = side->pos]() -> Status {
            const K k = solver_.kind(tv);
            if (k == K::kUnknown)
              return fail(pos, "the type of this value is never fixed by the script, so it cannot be joined with '..'");
            if (k != K::kNum && k != K::kStr)
              return fail(pos, "'..' joins strings and numbers, not " + solver_.describe(tv));
            return {};
          };
          if (solver_.kind(tv) != K::kUnknown) KILN_TRY(joinable());
          deferred_.push_back(joinable);
        }
        return record(e, solver_.fresh(K::kStr));
      case BinOp::kEq:
      case BinOp::kNe:
        deferred_.push_back({[this, tv = *a, pos = e.pos]() -> Status {
          if (solver_.kind(tv) == K::kFunc)
            return fail(pos,
                        "comparing functions is outside Kiln's script subset (Lua compares closures, which it "
                        "creates anew)");
          return {};
        }});
        if (!solver_.unify(*a, *b))
          return fail(e.pos, "'" + opname + "' compares " + solver_.describe(*a) + " with " + solver_.describe(*b) +
                                 ": values of different types are never equal");
        return record(e, solver_.fresh(K::kBool));
      case BinOp::kAnd:
      case BinOp::kOr:
        require_known(*a, e.a->pos, "an operand of 'and'/'or'");
        if (!solver_.unify(*a, *b))
          return fail(e.pos, "'" + opname + "' needs operands of one type, not " + solver_.describe(*a) + " and " +
                                 solver_.describe(*b));
        return record(e, *a);
    }
    return fail(e.pos, "unsupported operator");
  }

  // A call, by what is called: print, a script function, a function value, math.*, engine.*.
  Result<int> call(const Expr& e) {
    const Expr& callee = *e.a;
    if (e.method) return method_call(e);
    if (callee.kind == ExprKind::kName) {
      const Symbol* s = lookup(callee.text);
      if (!s && callee.text == "print") return print_call(e);
      if (s && s->kind == Symbol::kFunction) {
        function_uses_.push_back({&callee, &e, s->function, s->var, cur_fn()});
        return script_call(e, s->function);
      }
      if (!s && globals_.count(callee.text)) return script_call(e, globals_.at(callee.text));
      if (s) return indirect_call(e, "'" + callee.text + "'");  // a variable holding a function value
      if (!globals_.count(callee.text) && (callee.text == "tostring" || callee.text == "tonumber"))
        return string_call(e, callee.text);
      return fail(callee.pos, "unknown function '" + callee.text + "'");
    }
    if (callee.kind == ExprKind::kField && callee.a->kind == ExprKind::kName && !lookup(callee.a->text)) {
      if (callee.a->text == "math") return math_call(e);
      if (callee.a->text == "engine") return host_call(e);
      if (callee.a->text == "string") return string_call(e, "string." + callee.text);
    }
    if (callee.kind == ExprKind::kField) return indirect_call(e, "'" + callee.text + "'");  // a record's field
    return indirect_call(e, "this");  // any other expression: a function value
  }

  // The type variables of a call's arguments; print also takes string literals.
  Result<std::vector<int>> call_args(const Expr& e, bool print = false) {
    std::vector<int> args;
    for (const auto& arg : e.items) {
      if (print && arg->kind == ExprKind::kString) {
        args.push_back(record(*arg, solver_.fresh(K::kStr)));
        continue;
      }
      auto tv = value(*arg);
      if (!tv) return tv.error();
      args.push_back(*tv);
    }
    return args;
  }

  Result<int> print_call(const Expr& e) {
    auto args = call_args(e, true);
    if (!args) return args.error();
    for (std::size_t i = 0; i < args->size(); ++i)
      deferred_.push_back({[this, tv = (*args)[i], pos = e.items[i]->pos]() -> Status {
        const K k = solver_.kind(tv);
        if (k == K::kArray)
          return fail(pos, "print of an array is outside Kiln's script subset (Lua prints its address)");
        if (k == K::kFunc)
          return fail(pos, "print of a function is outside Kiln's script subset (Lua prints its address)");
        if (k == K::kRecord)
          return fail(pos, "print of a record is outside Kiln's script subset (Lua prints its address)");
        if (k == K::kUnknown)
          return fail(pos, "the type of this value is never fixed by the script, so it cannot be printed");
        return {};
      }});
    out_.calls[&e] = {CallTarget::kPrint, 0};
    return record(e, solver_.fresh(K::kVoid));
  }

  Result<int> script_call(const Expr& e, int fn) {
    auto args = call_args(e);
    if (!args) return args.error();
    const FunctionDef& def = *out_.functions[fn].def;
    if (args->size() != def.params.size())
      return fail(e.pos, "function '" + def.name + "' takes " + std::to_string(def.params.size()) + " arguments, not " +
                             std::to_string(args->size()) + " (defined at " + at(def.pos) + ")");
    for (std::size_t i = 0; i < args->size(); ++i)
      if (!solver_.unify(states_[fn].param_tvs[i], (*args)[i]))
        return fail(e.items[i]->pos, "argument " + std::to_string(i + 1) + " of '" + def.name + "' is " +
                                         solver_.describe((*args)[i]) + " here but " +
                                         solver_.describe(states_[fn].param_tvs[i]) + " elsewhere");
    out_.calls[&e] = {CallTarget::kScript, fn};
    return record(e, states_[fn].result_tv);
  }

  // A function value, typed by its arguments; `shown` names the callee in messages.
  Result<int> indirect_call(const Expr& e, const std::string& shown) {
    const Expr& callee = *e.a;
    auto tv = value(callee);
    if (!tv) return tv;
    auto args = call_args(e);
    if (!args) return args.error();
    const int result = solver_.fresh();
    if (!solver_.unify(*tv, solver_.function_of(*args, result)))
      return fail(callee.pos, shown + " is " + solver_.describe(*tv) + ", not a function of " +
                                  std::to_string(args->size()) + " arguments");
    out_.calls[&e] = {CallTarget::kIndirect, 0};
    return record(e, result);
  }

  // obj:f(...): a record's field f called with obj first (Lua's methods), or string.f(obj, ...)
  // for anything else. The object's type must be known where the call is written to be a record.
  Result<int> method_call(const Expr& e) {
    auto obj = value(*e.items[0]);
    if (!obj) return obj;
    if (solver_.kind(*obj) != K::kRecord) return string_call(e, "string." + e.a->text, *obj);
    const int callee = solver_.fresh();
    pending_fields_.push_back({e.a.get(), *obj, callee, false});
    KILN_TRY(resolve_field(pending_fields_.back(), false));
    std::vector<int> args = {*obj};
    for (std::size_t i = 1; i < e.items.size(); ++i) {
      auto tv = value(*e.items[i]);
      if (!tv) return tv;
      args.push_back(*tv);
    }
    const int result = solver_.fresh();
    const std::string before = solver_.describe(callee);
    if (!solver_.unify(callee, solver_.function_of(args, result)))
      return fail(e.a->pos, "'" + e.a->text + "' is " + before + ", not a function of " + std::to_string(args.size()) +
                                " arguments (the object is the first)");
    out_.calls[&e] = {CallTarget::kIndirect, 0};
    return record(e, result);
  }

  // tostring, tonumber and string.*, `name` as the script spells it (the method form s:f(...) is
  // string.f(s, ...); `first`: the type of its first argument, checked already).
  Result<int> string_call(const Expr& e, const std::string& name, std::optional<int> first = std::nullopt) {
    struct Signature {
      StringFn fn;
      std::size_t min_args, max_args;
      K first;  // the first argument: kStr, kNum, or kUnknown for "a number, a boolean or a string"
      K rest;   // the others, the same way
      K result;
    };
    static const std::map<std::string, Signature> table = {
        {"tostring", {StringFn::kToString, 1, 1, K::kUnknown, K::kNum, K::kStr}},
        {"tonumber", {StringFn::kToNumber, 1, 1, K::kUnknown, K::kNum, K::kNum}},
        {"string.len", {StringFn::kLen, 1, 1, K::kStr, K::kNum, K::kNum}},
        {"string.sub", {StringFn::kSub, 2, 3, K::kStr, K::kNum, K::kStr}},
        {"string.upper", {StringFn::kUpper, 1, 1, K::kStr, K::kNum, K::kStr}},
        {"string.lower", {StringFn::kLower, 1, 1, K::kStr, K::kNum, K::kStr}},
        {"string.rep", {StringFn::kRep, 2, 2, K::kStr, K::kNum, K::kStr}},
        {"string.byte", {StringFn::kByte, 1, 2, K::kStr, K::kNum, K::kNum}},
        {"string.char", {StringFn::kChar, 0, jit::kMaxStringArgs, K::kNum, K::kNum, K::kStr}},
        {"string.format", {StringFn::kFormat, 1, jit::kMaxStringArgs, K::kStr, K::kUnknown, K::kStr}},
    };
    const auto it = table.find(name);
    if (it == table.end())
      return fail(e.a->pos, name + " is outside Kiln's script subset (its string functions: tostring, tonumber, " +
                                "string.sub len upper lower rep byte char format)");
    const Signature& sig = it->second;
    Result<std::vector<int>> args = std::vector<int>{};
    if (first) {
      args->push_back(*first);
      for (std::size_t i = 1; i < e.items.size(); ++i) {
        auto tv = value(*e.items[i]);
        if (!tv) return tv;
        args->push_back(*tv);
      }
    } else {
      args = call_args(e);
    }
    if (!args) return args.error();
    if (args->size() < sig.min_args || args->size() > sig.max_args)
      return fail(e.pos, name + " takes " +
                             (sig.min_args == sig.max_args ? std::to_string(sig.min_args)
                              : sig.max_args == jit::kMaxStringArgs
                                  ? "at most " + std::to_string(sig.max_args)
                                  : std::to_string(sig.min_args) + " or " + std::to_string(sig.max_args)) +
                             " arguments, not " + std::to_string(args->size()));
    for (std::size_t i = 0; i < args->size(); ++i) {
      const int tv = (*args)[i];
      const K want = i == 0 ? sig.first : sig.rest;
      const Pos pos = e.items[i]->pos;
      if (want != K::kUnknown) {
        if (!solver_.unify(tv, solver_.fresh(want)))
          return fail(pos, "argument " + std::to_string(i + 1) + " of " + name + " must be " +
                               (want == K::kStr ? "a string" : "a number") + ", not " + solver_.describe(tv));
        continue;
      }
      // A number, a string, or (tostring, format) a boolean, known by the end of the script.
      const bool booleans = sig.fn != StringFn::kToNumber;
      deferred_.push_back({[this, tv, pos, name, booleans, i]() -> Status {
        const K k = solver_.kind(tv);
        if (k == K::kNum || k == K::kStr || (booleans && k == K::kBool)) return {};
        if (k == K::kUnknown)
          return fail(pos, "the type of this value is never fixed by the script, so " + name + " cannot take it");
        return fail(pos, "argument " + std::to_string(i + 1) + " of " + name + " must be a number" +
                             (booleans ? ", a boolean" : "") + " or a string, not " + solver_.describe(tv));
      }});
    }
    if (sig.fn == StringFn::kFormat && e.items[0]->kind == ExprKind::kString)
      deferred_.push_back({[this, &e, args = *args]() -> Status { return format_check(e, args); }});
    out_.calls[&e] = {CallTarget::kString, static_cast<int>(sig.fn)};
    return record(e, solver_.fresh(sig.result));
  }

  // A literal pattern of string.format against its arguments: the conversions Lua would refuse,
  // and a number or string where the pattern asks for the other.
  Status format_check(const Expr& e, const std::vector<int>& args) {
    const std::string& pattern = e.items[0]->text;
    std::size_t at = 0, used = 1;
    std::string text;
    for (;;) {
      auto conversion = jit::next_conversion(pattern, at, text);
      if (!conversion) return fail(e.items[0]->pos, "string.format: " + conversion.error().message);
      if (!*conversion) break;
      if (used >= args.size())
        return fail(e.pos, "string.format: the pattern has more conversions than the " +
                               std::to_string(args.size() - 1) + " values given");
      const K k = solver_.kind(args[used]);
      const char letter = (*conversion)->letter;
      if (jit::takes_number(letter) ? k != K::kNum : k == K::kBool)
        return fail(e.items[used]->pos, std::string("string.format: '%") + letter + "' needs " +
                                            (jit::takes_number(letter) ? "a number" : "a string or a number") +
                                            ", not " + solver_.describe(args[used]));
      ++used;
    }
    return {};
  }

  Result<int> math_call(const Expr& e) {
    const std::string& name = e.a->text;
    auto it = math_functions().find(name);
    if (it == math_functions().end()) return fail(e.a->pos, "unknown math function 'math." + name + "'");
    auto args = call_args(e);
    if (!args) return args.error();
    const int arity = it->second.second;
    if ((arity < 0 && args->empty()) || (arity >= 0 && static_cast<int>(args->size()) != arity))
      return fail(e.pos, "math." + name + " takes " + (arity < 0 ? std::string("one or more") : std::to_string(arity)) +
                             " arguments");
    for (std::size_t i = 0; i < args->size(); ++i)
      if (!solver_.unify((*args)[i], solver_.fresh(K::kNum)))
        return fail(e.items[i]->pos, "math." + name + " needs numbers, not " + solver_.describe((*args)[i]));
    out_.calls[&e] = {CallTarget::kMath, static_cast<int>(it->second.first)};
    return record(e, solver_.fresh(K::kNum));
  }

  Result<int> host_call(const Expr& e) {
    const std::string& name = e.a->text;
    const auto h = std::find_if(host_.begin(), host_.end(), [&](const HostSignature& sig) { return sig.name == name; });
    if (h == host_.end()) {
      std::vector<std::string> names;
      for (const HostSignature& sig : host_) names.push_back("engine." + sig.name);
      return fail(e.a->pos, "unknown host function 'engine." + name + "'" + did_you_mean("engine." + name, names));
    }
    auto args = call_args(e);
    if (!args) return args.error();
    if (args->size() != h->params.size())
      return fail(e.pos, "engine." + name + " takes " + std::to_string(h->params.size()) + " arguments");
    for (std::size_t i = 0; i < args->size(); ++i) {
      const K want = h->params[i] == Type::kBoolean ? K::kBool : K::kNum;
      if (!solver_.unify((*args)[i], solver_.fresh(want)))
        return fail(e.items[i]->pos, "argument " + std::to_string(i + 1) + " of engine." + name + " must be " +
                                         type_name(h->params[i]) + ", not " + solver_.describe((*args)[i]));
    }
    out_.calls[&e] = {CallTarget::kHost, static_cast<int>(h - host_.begin())};
    const K r = h->result == Type::kVoid ? K::kVoid : h->result == Type::kBoolean ? K::kBool : K::kNum;
    return record(e, solver_.fresh(r));
  }

  // ---- closures ----------------------------------------------------------------------------------
  // A local function that captures is a closure: where it is named, its variable (which holds the
  // closure) is read instead, and reaching that variable may make another function a closure.
  Status close_functions() {
    for (bool changed = true; changed;) {
      changed = false;
      for (FunctionUse& use : function_uses_) {
        if (use.closed || use.var < 0 || states_[static_cast<std::size_t>(use.function)].upvalues.empty()) continue;
        use.closed = changed = true;
        const Var& v = vars_[static_cast<std::size_t>(use.var)];
        if (v.storage == VarRef::kLocal && v.owner != use.user)
          KILN_TRY(capture(use.var, use.user, use.e->pos, use.e->text));
      }
    }
    for (const FunctionUse& use : function_uses_) {
      if (!use.closed) continue;
      out_.names[use.e] = ref_of(use.var, use.user);
      out_.function_refs.erase(use.e);
      if (use.call) out_.calls[use.call] = {CallTarget::kIndirect, 0};
    }
    for (std::size_t g = 1; g < states_.size(); ++g) {
      const FunctionState& fs = states_[g];
      CheckedFunction& out = out_.functions[g];
      for (int var : fs.upvalues) {
        const Var& v = vars_[static_cast<std::size_t>(var)];
        if (v.owner == fs.parent) {
          out.upvalues.push_back({false, v.slot});
        } else {
          const auto& outer = states_[static_cast<std::size_t>(fs.parent)].upvalues;
          out.upvalues.push_back({true, static_cast<int>(std::find(outer.begin(), outer.end(), var) - outer.begin())});
        }
      }
      for (int var : fs.param_vars)
        if (vars_[static_cast<std::size_t>(var)].captured)
          out.boxed_params.push_back(vars_[static_cast<std::size_t>(var)].slot);
    }
    return {};
  }

  // Where variable `var` is, seen from function `user`.
  VarRef ref_of(int var, int user) {
    const Var& v = vars_[static_cast<std::size_t>(var)];
    const Type type = solver_.resolve(v.tv);
    if (v.storage == VarRef::kModule) return {VarRef::kModule, v.slot, type};
    if (v.owner == user) return {v.captured ? VarRef::kCell : VarRef::kLocal, v.slot, type};
    const auto& up = states_[static_cast<std::size_t>(user)].upvalues;
    return {VarRef::kUpvalue, static_cast<int>(std::find(up.begin(), up.end(), var) - up.begin()), type};
  }

  // ---- the end: deferred checks and final types -------------------------------------------------
  Status finish() {
    if (too_many_locals_)
      return fail(*too_many_locals_,
                  "too many local variables (more than " + std::to_string(kMaxLocals) + " in one function)");
    if (out_.module_slots > 65535) return fail({1, 1}, "too many local variables in the chunk (more than 65535)");
    if (out_.functions.size() > 65535) return fail({1, 1}, "too many functions (more than 65535)");
    KILN_TRY(resolve_fields(false));
    for (auto& d : defaults_) d();
    KILN_TRY(resolve_fields(true));
    for (auto& d : deferred_) KILN_TRY(d());
    for (const PendingField& p : pending_fields_) out_.field_index[p.e] = solver_.field_index(p.object, p.e->text);
    for (const auto& [e, tv] : record_literals_) {
      RecordLiteral& literal = out_.records[e];
      const TypeSolver::Fields& fields = solver_.fields(tv);
      literal.fields = static_cast<int>(fields.size());
      for (const std::string& key : e->keys) literal.slots.push_back(solver_.field_index(tv, key));
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (jit::is_reference(solver_.resolve(fields[i].second))) literal.refs |= std::uint64_t{1} << i;
      }
    }
    for (const auto& [e, tv] : expr_tvs_) out_.types[e] = solver_.resolve(tv);
    KILN_TRY(close_functions());
    for (const VarUse& use : var_uses_) out_.names[use.e] = ref_of(use.var, use.user);
    for (const auto& [ref, var] : pending_decls_) *ref = ref_of(var, vars_[static_cast<std::size_t>(var)].owner);
    for (std::size_t i = 1; i < states_.size(); ++i) {
      CheckedFunction& f = out_.functions[i];
      for (int tv : states_[i].param_tvs) f.params.push_back(solver_.resolve(tv));
      f.result = solver_.resolve(states_[i].result_tv);
    }
    return {};
  }

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

}  // namespace

Result<CheckedScript> check_script(const Script& script, const std::vector<HostSignature>& host) {
  return Checker(script, host).run();
}

}  // namespace kiln::lang
