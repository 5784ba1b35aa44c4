#pragma once
// The value types of Kiln's script language, and the signatures of host and math functions: what
// the bytecode, the interpreter and the compiled pages agree on with the language front end
// (engine/lang), without seeing its syntax tree.

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::jit {

// kArray: an array of references (strings, arrays, records). kRecord: a record (fixed named fields).
enum class Type { kNumber, kBoolean, kNumberArray, kBooleanArray, kString, kVoid, kFunction, kArray, kRecord };
inline constexpr unsigned kMaxRecordFields = 64;
// Values that are references to heap objects (the collector follows them): all but numbers and
// booleans. A function value is a closure.
inline bool is_reference(Type t) { return t != Type::kNumber && t != Type::kBoolean && t != Type::kVoid; }
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

// The string functions of the subset, run by the STR instruction: concatenation (any number of
// operands), tostring, tonumber and the members of `string`.
// clang-format off: enumerators grouped by meaning
enum class StringFn : std::uint8_t {
  kConcat,
  kToString,
  kToNumber,
  kSub,
  kUpper,
  kLower,
  kRep,
  kByte,
  kChar,
  kFormat,
  kLen,
  kCount,
};
// clang-format on

// What an argument of a STR instruction is: two bits per argument in the word after it.
enum class ArgKind : std::uint8_t { kNumber = 0, kBoolean = 1, kString = 2 };
inline constexpr unsigned kMaxStringArgs = 16;
inline ArgKind arg_kind(std::uint32_t kinds, unsigned i) { return ArgKind((kinds >> (2 * i)) & 3); }

}  // namespace kiln::jit
