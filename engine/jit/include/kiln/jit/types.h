#pragma once
// The value types of Kiln's script language, and the signatures of host and math functions: what
// the bytecode, the interpreter and the compiled pages agree on with the language front end
// (engine/lang), without seeing its syntax tree.

#include <string>
#include <vector>

namespace kiln::jit {

enum class Type { kNumber, kBoolean, kNumberArray, kBooleanArray, kString, kVoid, kFunction };
std::string type_name(Type t);

// A function the embedding engine registers: `engine.<name>(params...) -> result`.
struct HostSignature {
  std::string name;
  std::vector<Type> params;  // numbers and booleans
  Type result = Type::kVoid;
};

// The math functions of the subset: one number argument unless noted (fmod, pow, atan2: two;
// min, max: one or more), and the constants math.pi and math.huge.
// clang-format off: enumerators grouped by meaning
enum class MathFn {
  kAbs,
  kFloor,
  kCeil,
  kSqrt,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kExp,
  kLog,
  kLog10,
  kFmod,
  kPow,
  kAtan2,
  kMin,
  kMax,
};
// clang-format on

}  // namespace kiln::jit
