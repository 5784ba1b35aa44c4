#include "kiln/lang/checker.h"

#include <algorithm>

#include "checker_impl.h"

namespace kiln::lang::detail {

Result<CheckedScript> Checker::run() {
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

VarRef Checker::declare_var(const std::string& name, Pos pos, int tv) {
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

Status Checker::declare_globals(const Block& b) {
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

std::vector<const Block*> Checker::children(const Stmt& st) {
  std::vector<const Block*> out;
  if (st.kind == StmtKind::kFunction) out.push_back(&st.function->body);
  for (const auto& b : st.blocks) out.push_back(&b);
  if (st.kind == StmtKind::kDo || st.kind == StmtKind::kWhile || st.kind == StmtKind::kRepeat ||
      st.kind == StmtKind::kNumericFor)
    out.push_back(&st.body);
  return out;
}

int Checker::new_function(const FunctionDef& f, const Stmt* st) {
  const int index = static_cast<int>(out_.functions.size());
  out_.functions.push_back({&f, f.name, {}, Type::kVoid, 0});
  FunctionState fs{index, {}, solver_.fresh(), {}, {}};
  for (std::size_t i = 0; i < f.params.size(); ++i) fs.param_tvs.push_back(solver_.fresh());
  fs.global = st && !f.is_local;
  states_.push_back(fs);
  if (st) out_.function_index[st] = index;
  return index;
}

Status Checker::block(const Block& b, bool new_scope) {
  if (new_scope) scopes_.emplace_back();
  for (const auto& st : b) KILN_TRY(statement(*st));
  if (new_scope) scopes_.pop_back();
  return {};
}

Status Checker::statement(const Stmt& st) {
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

Status Checker::loop_body(const Block& body) {
  ++loop_depth_.back();
  auto s = block(body);
  --loop_depth_.back();
  return s;
}

Status Checker::return_stat(const Stmt& st) {
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
    return fail(st.values[0]->pos, "function '" + out_.functions[cur_fn()].name + "' returns " + solver_.describe(*v) +
                                       " here but " + solver_.describe(fs.result_tv) + " elsewhere");
  if (!fs.value_return) fs.value_return = st.pos;
  return {};
}

Status Checker::function_stat(const Stmt& st) {
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

Status Checker::function_body(const FunctionDef& f, int index) {
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

bool Checker::always_returns(const Block& b) {
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

Result<int> Checker::assign_target(const Expr& e) {
  if (e.kind == ExprKind::kIndex) return index(e);
  if (e.kind == ExprKind::kField) {
    if (e.a->kind == ExprKind::kName && is_library(e.a->text) && !lookup(e.a->text))
      return fail(e.pos, "cannot assign to library member '" + e.a->text + "." + e.text + "'");
    return field(e);
  }
  const Symbol* s = lookup(e.text);
  if (!s) {
    if (globals_.count(e.text) || is_library(e.text)) return fail(e.pos, "cannot assign to function '" + e.text + "'");
    return fail(e.pos, "assignment to undeclared global '" + e.text + "' (declare it with 'local')");
  }
  if (s->kind == Symbol::kFunction) return fail(e.pos, "cannot assign to function '" + e.text + "'");
  KILN_TRY(reach(*s, e));
  var_uses_.push_back({&e, s->var, cur_fn()});
  return s->tv;
}

Status Checker::finish() {
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

}  // namespace kiln::lang::detail

namespace kiln::lang {

Result<CheckedScript> check_script(const Script& script, const std::vector<HostSignature>& host) {
  return detail::Checker(script, host).run();
}

}  // namespace kiln::lang
