#pragma once
// Type variables with unification (union-find), for the checker. A variable is unknown, a
// primitive, an array of another variable, a function, or a record: named fields, each a variable.
// Records are structural: two are one type when they have the same field names.

#include <string>
#include <vector>

#include "kiln/lang/checker.h"

namespace kiln::lang {

class TypeSolver {
 public:
  enum Kind { kUnknown, kNum, kBool, kStr, kVoid, kArray, kFunc, kRecord };
  using Fields = std::vector<std::pair<std::string, int>>;  // sorted by name

  int fresh(Kind k = kUnknown, int elem = -1);
  int array_of(int elem) { return fresh(kArray, elem); }
  // A function type: its parameters and result are shared type variables.
  int function_of(std::vector<int> params, int result);
  int record_of(Fields fields);
  const Fields& fields(int v) { return nodes_[find(v)].fields; }
  // The index of field `name` in record v's fields, or -1.
  int field_index(int v, const std::string& name);
  int find(int v);
  Kind kind(int v) { return nodes_[find(v)].kind; }
  int elem(int v) { return nodes_[find(v)].elem; }
  // False if the two cannot be the same type.
  bool unify(int a, int b);
  // The final type: unknown numbers default to number, arrays of unknown to arrays of numbers.
  Type resolve(int v);
  std::string describe(int v);

 private:
  struct Node {
    int parent;
    Kind kind;
    int elem;                 // kArray: the element; kFunc: the result
    std::vector<int> params;  // kFunc
    Fields fields;            // kRecord
  };
  std::vector<Node> nodes_;
};

}  // namespace kiln::lang
