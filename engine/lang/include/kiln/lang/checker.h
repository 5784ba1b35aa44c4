#pragma once
// The type checker of Kiln's Lua subset. It resolves every name (module variable = a local of the
// chunk, function local, function), infers one static type for each variable, parameter, return
// and expression, and rejects what cannot be typed or lies outside the subset with
// `file:line:col: message`:
//   - values are numbers, booleans, strings, and arrays of one type (arrays of arrays included);
//   - records {x = a, y = b} have fixed fields, read and written as r.x; a record's type is its
//     field names (and their types): any two records with the same names are of one type;
//   - `..` joins strings and numbers; `#` is an array's or a string's length; strings compare in
//     byte order; tostring, tonumber, string.* (sub len upper lower rep byte char format) and the
//     method form s:f(...) of the same;
//   - functions are values (passed, stored, called; not compared); anonymous functions and local
//     functions capture the locals of enclosing functions as Lua does: a captured local lives in
//     a cell every closure of it shares (a loop's local is a new one each iteration); a global
//     function captures nothing;
//   - every local starts with a value (nil is outside the subset); globals are only functions;
//   - `a and b` / `a or b` need one type, except the idiom `c and x or y` with x, y of one type that
//     is never false (a number or an array).
// Names are visible as in Lua: a function sees the chunk's locals declared before it.
//
// Thread-safety: pure function of its inputs.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/jit/types.h"
#include "kiln/lang/ast.h"

namespace kiln::lang {

// The front end speaks the runtime's value types.
using jit::HostSignature;
using jit::MathFn;
using jit::StringFn;
using jit::Type;

// Where a variable lives: a module slot, a register, a register holding the cell of a captured
// local, or (in a closure) the cell of its upvalue `slot`.
struct VarRef {
  enum Kind { kModule, kLocal, kCell, kUpvalue } kind = kLocal;
  int slot = 0;
  Type type = Type::kNumber;
};

// Where a closure's upvalue comes from when the closure is made: a cell in a register of the
// function making it, or an upvalue of that function (itself a closure).
struct UpvalueSource {
  bool from_upvalue = false;
  int index = 0;
};

struct CallTarget {
  enum Kind { kScript, kMath, kHost, kPrint, kIndirect, kString } kind = kScript;
  int index = 0;  // script function, MathFn, host signature, or StringFn; kIndirect: the callee is a value
};

// A record constructor {x = a, y = b}: each item's field index (fields are in name order) and the
// fields that hold references (strings, arrays, records), which the collector follows.
struct RecordLiteral {
  std::vector<int> slots;
  std::uint64_t refs = 0;
  int fields = 0;
};

struct CheckedFunction {
  const FunctionDef* def = nullptr;  // nullptr for the chunk itself (function 0)
  std::string name;
  std::vector<Type> params;
  Type result = Type::kVoid;
  int frame_slots = 0;  // parameters first, then every local of the body
  // A closure (it captures locals of enclosing functions): where each upvalue comes from. Its
  // closure is in register params.size() (the caller puts it there).
  std::vector<UpvalueSource> upvalues;
  std::vector<int> boxed_params;  // parameters captured by closures: moved into cells at entry
  bool is_closure() const { return !upvalues.empty(); }
};

struct CheckedScript {
  const Script* script = nullptr;
  std::vector<CheckedFunction> functions;  // [0] is the chunk
  int module_slots = 0;
  std::unordered_map<const Expr*, Type> types;    // every value expression
  std::unordered_map<const Expr*, VarRef> names;  // kName uses
  std::unordered_map<const Expr*, CallTarget> calls;
  std::unordered_map<const Expr*, int> function_refs;             // a function named as a value: its index
  std::unordered_map<const Stmt*, std::vector<VarRef>> declared;  // kLocal names, kNumericFor variable
  std::unordered_map<const Stmt*, int> function_index;            // kFunction statements
  std::unordered_map<const Expr*, int> field_index;               // kField of a record: the field's index
  std::unordered_map<const Expr*, RecordLiteral> records;         // kTable of a record
  std::unordered_map<const Expr*, int> function_exprs;            // kFunction (anonymous) expressions
};

Result<CheckedScript> check_script(const Script& script, const std::vector<HostSignature>& host = {});

}  // namespace kiln::lang
