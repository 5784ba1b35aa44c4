#pragma once
// The syntax tree of a script in Kiln's Lua subset, as the parser builds it. Positions are 1-based
// line and column of the construct's first token. Types are filled in by the checker.
//
// Thread-safety: plain data; one thread builds it, any may read it afterwards.

#include <memory>
#include <string>
#include <vector>

namespace kiln::lang {

struct Pos {
  int line = 0;
  int col = 0;
};

enum class BinOp { kAdd, kSub, kMul, kDiv, kMod, kPow, kEq, kNe, kLt, kLe, kGt, kGe, kAnd, kOr, kConcat };
enum class UnOp { kNeg, kNot, kLen };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind {
  kNumber,    // number
  kBool,      // boolean
  kString,    // text
  kName,      // name
  kIndex,     // a[b]
  kField,     // a.name: a record's field, or a library member such as math.pi, string.sub, engine.param
  kCall,      // a(args); a method call s:f(args) is a kCall with `method`, a kField f without object, items s, args
  kBinary,    // a op b
  kUnary,     // op a
  kTable,     // {items}: an array, or a record {name = item, ...} (keys)
  kFunction,  // function (params) body end
};

struct FunctionDef;

struct Expr {
  ExprKind kind;
  Pos pos;
  double number = 0;
  bool boolean = false;
  bool method = false;  // kCall: written s:f(args)
  std::string text;     // kString text, kName / kField name
  BinOp binop = BinOp::kAdd;
  UnOp unop = UnOp::kNeg;
  ExprPtr a, b;                   // operands; kIndex: a[b]; kField: a.text; kCall: a(items)
  std::vector<ExprPtr> items;     // kCall arguments, kTable elements
  std::vector<std::string> keys;  // kTable of a record: the field name of each item
  std::vector<Pos> key_pos;
  std::shared_ptr<FunctionDef> function;  // kFunction
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

enum class StmtKind {
  kLocal,       // local names = values
  kAssign,      // targets = values
  kCall,        // call statement (expr is a kCall)
  kDo,          // do body end
  kWhile,       // while cond do body end
  kRepeat,      // repeat body until cond
  kIf,          // if conds[0] then blocks[0] elseif ... else else_body end
  kNumericFor,  // for name = start, limit [, step] do body end
  kBreak,
  kReturn,    // return [value]
  kFunction,  // function name(params) body end  /  local function name(...)
};

struct FunctionDef {
  std::string name;
  Pos pos;
  bool is_local = false;
  std::vector<std::string> params;
  std::vector<Pos> param_pos;
  Block body;
};

struct Stmt {
  StmtKind kind;
  Pos pos;
  std::vector<std::string> names;  // kLocal names, kNumericFor variable
  std::vector<Pos> name_pos;
  std::vector<ExprPtr> targets;  // kAssign
  std::vector<ExprPtr> values;   // kLocal / kAssign values, kReturn value (0 or 1), kNumericFor start/limit/step
  ExprPtr expr;                  // kCall call, kWhile / kRepeat condition
  std::vector<ExprPtr> conds;    // kIf
  std::vector<Block> blocks;     // kIf branches (conds.size() or conds.size() + 1 with else)
  Block body;                    // kDo, kWhile, kRepeat, kNumericFor
  std::unique_ptr<FunctionDef> function;  // kFunction
};

struct Script {
  std::string file;
  Block body;  // the chunk
};

}  // namespace kiln::lang
