#include "lexer.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

namespace kiln::lang {
namespace {

const std::map<std::string_view, Tok>& keywords() {
  static const std::map<std::string_view, Tok> k = {
      {"and", Tok::kAnd},           {"break", Tok::kBreak},   {"do", Tok::kDo},       {"else", Tok::kElse},
      {"elseif", Tok::kElseif},     {"end", Tok::kEnd},       {"false", Tok::kFalse}, {"for", Tok::kFor},
      {"function", Tok::kFunction}, {"goto", Tok::kGoto},     {"if", Tok::kIf},       {"in", Tok::kIn},
      {"local", Tok::kLocal},       {"nil", Tok::kNil},       {"not", Tok::kNot},     {"or", Tok::kOr},
      {"repeat", Tok::kRepeat},     {"return", Tok::kReturn}, {"then", Tok::kThen},   {"true", Tok::kTrue},
      {"until", Tok::kUntil},       {"while", Tok::kWhile}};
  return k;
}

class Lexer {
 public:
  Lexer(const std::string& file, std::string_view src) : file_(file), src_(src) {}

  Result<std::vector<Token>> run() {
    std::vector<Token> out;
    for (;;) {
      KILN_TRY(skip_space_and_comments());
      Token t;
      t.pos = {line_, col_};
      if (at_end()) {
        t.kind = Tok::kEof;
        out.push_back(t);
        return out;
      }
      const char c = peek();
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::string name;
        while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_')) name += advance();
        auto kw = keywords().find(name);
        t.kind = kw == keywords().end() ? Tok::kName : kw->second;
        t.text = std::move(name);
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
        KILN_TRY(number(t));
      } else if (c == '"' || c == '\'') {
        KILN_TRY(quoted_string(t));
      } else if (c == '[' && (peek(1) == '[' || peek(1) == '=')) {
        KILN_TRY(long_string(t));
      } else if (auto s = symbol(t); !s) {
        return s.error();
      }
      out.push_back(std::move(t));
    }
  }

 private:
  bool at_end() const { return i_ >= src_.size(); }
  char peek(std::size_t ahead = 0) const { return i_ + ahead < src_.size() ? src_[i_ + ahead] : '\0'; }
  char advance() {
    const char c = src_[i_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }
  Error error_at(Pos p, const std::string& message) const {
    return make_error(file_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.col) + ": " + message);
  }

  // The level of a long bracket at the cursor ("[[" = 0, "[==[" = 2), or -1.
  int long_bracket_level() const {
    if (peek() != '[') return -1;
    std::size_t k = 1;
    while (peek(k) == '=') ++k;
    return peek(k) == '[' ? static_cast<int>(k - 1) : -1;
  }

  Status skip_long_bracket(int level, Pos start, std::string* text, const char* what) {
    for (int k = 0; k < level + 2; ++k) advance();
    if (peek() == '\n') advance();  // a newline right after the opening bracket is skipped
    for (;;) {
      if (at_end()) return error_at(start, std::string("unfinished long ") + what);
      if (peek() == ']') {
        std::size_t k = 1;
        while (peek(k) == '=') ++k;
        if (peek(k) == ']' && static_cast<int>(k - 1) == level) {
          for (std::size_t j = 0; j <= k; ++j) advance();
          return {};
        }
      }
      const char c = advance();
      if (text) *text += c;
    }
  }

  Status skip_space_and_comments() {
    for (;;) {
      while (!at_end() && std::isspace(static_cast<unsigned char>(peek()))) advance();
      if (peek() != '-' || peek(1) != '-') return {};
      const Pos start{line_, col_};
      advance();
      advance();
      if (int level = long_bracket_level(); level >= 0) {
        KILN_TRY(skip_long_bracket(level, start, nullptr, "comment"));
        continue;
      }
      while (!at_end() && peek() != '\n') advance();
    }
  }

  Status number(Token& t) {
    const Pos start{line_, col_};
    std::string text;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      text += advance();
      text += advance();
      while (std::isxdigit(static_cast<unsigned char>(peek()))) text += advance();
      if (text.size() == 2) return error_at(start, "malformed number near '" + text + "'");
    } else {
      while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '.') text += advance();
      if (peek() == 'e' || peek() == 'E') {
        text += advance();
        if (peek() == '+' || peek() == '-') text += advance();
        while (std::isdigit(static_cast<unsigned char>(peek()))) text += advance();
      }
    }
    // Lua reads a number as far as alphanumerics go; "3x" is one malformed number.
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '.') text += advance();
    char* end = nullptr;
    const double v = text.size() > 2 && (text[1] == 'x' || text[1] == 'X')
                         ? static_cast<double>(std::strtoull(text.c_str() + 2, &end, 16))
                         : std::strtod(text.c_str(), &end);
    if (!end || *end != '\0') return error_at(start, "malformed number near '" + text + "'");
    t.kind = Tok::kNumber;
    t.number = v;
    t.text = text;
    return {};
  }

  Status quoted_string(Token& t) {
    const Pos start{line_, col_};
    const char quote = advance();
    std::string text;
    for (;;) {
      if (at_end() || peek() == '\n') return error_at(start, "unfinished string");
      char c = advance();
      if (c == quote) break;
      if (c != '\\') {
        text += c;
        continue;
      }
      if (at_end()) return error_at(start, "unfinished string");
      const Pos esc{line_, col_ - 1};
      c = advance();
      switch (c) {
        case 'n': text += '\n'; break;
        case 't': text += '\t'; break;
        case 'r': text += '\r'; break;
        case 'a': text += '\a'; break;
        case 'b': text += '\b'; break;
        case 'f': text += '\f'; break;
        case 'v': text += '\v'; break;
        case '\\': text += '\\'; break;
        case '"': text += '"'; break;
        case '\'': text += '\''; break;
        case '\n': text += '\n'; break;
        default:
          if (std::isdigit(static_cast<unsigned char>(c))) {
            int v = c - '0';
            for (int k = 0; k < 2 && std::isdigit(static_cast<unsigned char>(peek())); ++k)
              v = v * 10 + (advance() - '0');
            if (v > 255) return error_at(esc, "escape sequence too large");
            text += static_cast<char>(v);
          } else {
            return error_at(esc, std::string("invalid escape sequence '\\") + c + "'");
          }
      }
    }
    t.kind = Tok::kString;
    t.text = std::move(text);
    return {};
  }

  Status long_string(Token& t) {
    const Pos start{line_, col_};
    const int level = long_bracket_level();
    if (level < 0) return error_at(start, "invalid long string delimiter");
    std::string text;
    KILN_TRY(skip_long_bracket(level, start, &text, "string"));
    t.kind = Tok::kString;
    t.text = std::move(text);
    return {};
  }

  Status symbol(Token& t) {
    static const std::pair<std::string_view, Tok> symbols[] = {
        {"...", Tok::kEllipsis}, {"..", Tok::kConcat},  {"::", Tok::kDoubleColon}, {"==", Tok::kEq},
        {"~=", Tok::kNe},        {"<=", Tok::kLe},      {">=", Tok::kGe},          {"+", Tok::kPlus},
        {"-", Tok::kMinus},      {"*", Tok::kStar},     {"/", Tok::kSlash},        {"%", Tok::kPercent},
        {"^", Tok::kCaret},      {"#", Tok::kHash},     {"<", Tok::kLt},           {">", Tok::kGt},
        {"=", Tok::kAssign},     {"(", Tok::kLParen},   {")", Tok::kRParen},       {"{", Tok::kLBrace},
        {"}", Tok::kRBrace},     {"[", Tok::kLBracket}, {"]", Tok::kRBracket},     {";", Tok::kSemicolon},
        {":", Tok::kColon},      {",", Tok::kComma},    {".", Tok::kDot}};
    for (const auto& [spelling, kind] : symbols) {
      if (src_.substr(i_, spelling.size()) == spelling) {
        for (std::size_t k = 0; k < spelling.size(); ++k) advance();
        t.kind = kind;
        t.text = std::string(spelling);
        return {};
      }
    }
    const unsigned char c = static_cast<unsigned char>(peek());
    return error_at({line_, col_}, std::isprint(c) ? std::string("unexpected symbol '") + static_cast<char>(c) + "'"
                                                   : "unexpected byte " + std::to_string(c));
  }

  const std::string& file_;
  std::string_view src_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

}  // namespace

Result<std::vector<Token>> lex(const std::string& file, std::string_view source) { return Lexer(file, source).run(); }

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEof: return "end of file";
    case Tok::kName: return "name '" + t.text + "'";
    case Tok::kNumber: return "number " + t.text;
    case Tok::kString: return "string";
    default: return "'" + t.text + "'";
  }
}

}  // namespace kiln::lang
