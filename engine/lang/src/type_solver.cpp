#include "type_solver.h"

namespace kiln::lang {

int TypeSolver::fresh(Kind k, int elem) {
  nodes_.push_back({static_cast<int>(nodes_.size()), k, elem, {}});
  return static_cast<int>(nodes_.size()) - 1;
}

int TypeSolver::function_of(std::vector<int> params, int result) {
  const int v = fresh(kFunc, result);
  nodes_[v].params = std::move(params);
  return v;
}

int TypeSolver::find(int v) {
  while (nodes_[v].parent != v) {
    nodes_[v].parent = nodes_[nodes_[v].parent].parent;
    v = nodes_[v].parent;
  }
  return v;
}

bool TypeSolver::unify(int a, int b) {
  a = find(a);
  b = find(b);
  if (a == b) return true;
  Node& na = nodes_[a];
  Node& nb = nodes_[b];
  if (na.kind == kUnknown) {
    na.parent = b;
    return true;
  }
  if (nb.kind == kUnknown) {
    nb.parent = a;
    return true;
  }
  if (na.kind != nb.kind) return false;
  if (na.kind == kArray) {
    const int ea = na.elem, eb = nb.elem;
    na.parent = b;
    return unify(ea, eb);
  }
  if (na.kind == kFunc) {
    if (na.params.size() != nb.params.size()) return false;
    const std::vector<int> pa = na.params, pb = nb.params;
    const int ra = na.elem, rb = nb.elem;
    na.parent = b;
    for (std::size_t i = 0; i < pa.size(); ++i)
      if (!unify(pa[i], pb[i])) return false;
    return unify(ra, rb);
  }
  na.parent = b;
  return true;
}

Type TypeSolver::resolve(int v) {
  switch (kind(v)) {
    case kBool: return Type::kBoolean;
    case kStr: return Type::kString;
    case kVoid: return Type::kVoid;
    case kArray: {
      const Kind e = kind(elem(v));
      return e == kBool ? Type::kBooleanArray : e == kStr || e == kArray ? Type::kArray : Type::kNumberArray;
    }
    case kFunc: return Type::kFunction;
    default: return Type::kNumber;
  }
}

std::string TypeSolver::describe(int v) {
  switch (kind(v)) {
    case kUnknown: return "a value of unknown type";
    case kNum: return "a number";
    case kBool: return "a boolean";
    case kStr: return "a string";
    case kVoid: return "no value";
    case kArray: {
      const Kind e = kind(elem(v));
      return e == kBool    ? "an array of booleans"
             : e == kArray ? "an array of arrays"
             : e == kStr   ? "an array of strings"
                           : "an array of numbers";
    }
    case kFunc: return "a function of " + std::to_string(nodes_[find(v)].params.size()) + " parameters";
  }
  return "?";
}

}  // namespace kiln::lang
