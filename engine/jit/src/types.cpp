#include "kiln/jit/types.h"

namespace kiln::jit {

std::string type_name(Type t) {
  switch (t) {
    case Type::kNumber: return "number";
    case Type::kBoolean: return "boolean";
    case Type::kNumberArray: return "number[]";
    case Type::kBooleanArray: return "boolean[]";
    case Type::kString: return "string";
    case Type::kFunction: return "function";
    case Type::kVoid: return "void";
    case Type::kArray: return "array of references";
    case Type::kRecord: return "record";
  }
  return "?";
}

}  // namespace kiln::jit
