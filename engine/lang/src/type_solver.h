#pragma once
// Type variables with unification (union-find), for the checker. A variable is unknown, a
// primitive, or an array of another variable.

#include <string>
#include <vector>

#include "kiln/lang/checker.h"

namespace kiln::lang {

class TypeSolver {
 public:
  enum Kind { kUnknown, kNum, kBool, kStr, kVoid, kArray, kFunc };

  int fresh(Kind k = kUnknown, int elem = -1);
  int array_of(int elem) { return fresh(kArray, elem); }
  // A function type: its parameters and result are shared type variables.
  int function_of(std::vector<int> params, int result);
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
  };
  std::vector<Node> nodes_;
};

}  // namespace kiln::lang
