#pragma once
// Tokens of Lua 5.1 source, with positions. The lexer knows all of Lua's tokens, so that the
// parser can name a construct outside Kiln's subset instead of calling it a syntax error.

#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/lang/ast.h"

namespace kiln::lang {

// clang-format off: enumerators grouped by meaning
enum class Tok {
  kEof,
  kName,
  kNumber,
  kString,
  // keywords
  kAnd,
  kBreak,
  kDo,
  kElse,
  kElseif,
  kEnd,
  kFalse,
  kFor,
  kFunction,
  kGoto,
  kIf,
  kIn,
  kLocal,
  kNil,
  kNot,
  kOr,
  kRepeat,
  kReturn,
  kThen,
  kTrue,
  kUntil,
  kWhile,
  // symbols
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kCaret,
  kHash,
  kEq,
  kNe,
  kLe,
  kGe,
  kLt,
  kGt,
  kAssign,
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kLBracket,
  kRBracket,
  kSemicolon,
  kColon,
  kDoubleColon,
  kComma,
  kDot,
  kConcat,
  kEllipsis,
};
// clang-format on

struct Token {
  Tok kind = Tok::kEof;
  Pos pos;
  std::string text;  // name, string contents, or the token's spelling
  double number = 0;
};

// Fails with "file:line:col: message" at the first malformed token.
Result<std::vector<Token>> lex(const std::string& file, std::string_view source);

// How a token is written, for messages: "'end'", "'=='", "end of file", "name 'x'".
std::string describe(const Token& token);

}  // namespace kiln::lang
