#include "type_solver.h"

#include <algorithm>

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

int TypeSolver::record_of(Fields fields) {
  std::sort(fields.begin(), fields.end());
  const int v = fresh(kRecord);
  nodes_[v].fields = std::move(fields);
  return v;
}

int TypeSolver::field_index(int v, const std::string& name) {
  const Fields& f = fields(v);
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f[i].first == name) return static_cast<int>(i);
  return -1;
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
  if (na.kind == kRecord) {
    const Fields fa = na.fields, fb = nb.fields;
    if (fa.size() != fb.size()) return false;
    for (std::size_t i = 0; i < fa.size(); ++i)
      if (fa[i].first != fb[i].first) return false;
    na.parent = b;
    for (std::size_t i = 0; i < fa.size(); ++i)
      if (!unify(fa[i].second, fb[i].second)) return false;
    return true;
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
      if (e == kBool) return Type::kBooleanArray;
      return e == kStr || e == kArray || e == kRecord || e == kFunc ? Type::kArray : Type::kNumberArray;
    }
    case kRecord: return Type::kRecord;
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
      return e == kBool     ? "an array of booleans"
             : e == kArray  ? "an array of arrays"
             : e == kStr    ? "an array of strings"
             : e == kRecord ? "an array of records"
                            : "an array of numbers";
    }
    case kFunc: return "a function of " + std::to_string(nodes_[find(v)].params.size()) + " parameters";
    case kRecord: {
      std::string names;
      for (const auto& field : fields(v)) names += (names.empty() ? "" : ", ") + field.first;
      return "a record {" + names + "}";
    }
  }
  return "?";
}

}  // namespace kiln::lang
