// The checker: locals captured by closures, upvalues, and where every variable finally lives.

#include <algorithm>

#include "checker_impl.h"

namespace kiln::lang::detail {

Status Checker::reach(const Symbol& s, const Expr& e) {
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

Status Checker::capture(int var, int user, Pos pos, const std::string& name) {
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

Status Checker::close_functions() {
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

VarRef Checker::ref_of(int var, int user) {
  const Var& v = vars_[static_cast<std::size_t>(var)];
  const Type type = solver_.resolve(v.tv);
  if (v.storage == VarRef::kModule) return {VarRef::kModule, v.slot, type};
  if (v.owner == user) return {v.captured ? VarRef::kCell : VarRef::kLocal, v.slot, type};
  const auto& up = states_[static_cast<std::size_t>(user)].upvalues;
  return {VarRef::kUpvalue, static_cast<int>(std::find(up.begin(), up.end(), var) - up.begin()), type};
}

}  // namespace kiln::lang::detail
