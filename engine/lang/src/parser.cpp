#include "kiln/lang/parser.h"

#include "lexer.h"

namespace kiln::lang {
namespace {

// Lua 5.1's binary operator priorities (left, right): right < left makes an operator right-associative.
struct Priority {
  int left, right;
};
constexpr int kUnaryPriority = 8;

bool binary_op(Tok t, BinOp& op, Priority& p) {
  switch (t) {
    case Tok::kPlus:
      op = BinOp::kAdd;
      p = {6, 6};
      return true;
    case Tok::kMinus:
      op = BinOp::kSub;
      p = {6, 6};
      return true;
    case Tok::kStar:
      op = BinOp::kMul;
      p = {7, 7};
      return true;
    case Tok::kSlash:
      op = BinOp::kDiv;
      p = {7, 7};
      return true;
    case Tok::kPercent:
      op = BinOp::kMod;
      p = {7, 7};
      return true;
    case Tok::kCaret:
      op = BinOp::kPow;
      p = {10, 9};
      return true;
    case Tok::kEq:
      op = BinOp::kEq;
      p = {3, 3};
      return true;
    case Tok::kNe:
      op = BinOp::kNe;
      p = {3, 3};
      return true;
    case Tok::kLt:
      op = BinOp::kLt;
      p = {3, 3};
      return true;
    case Tok::kLe:
      op = BinOp::kLe;
      p = {3, 3};
      return true;
    case Tok::kGt:
      op = BinOp::kGt;
      p = {3, 3};
      return true;
    case Tok::kGe:
      op = BinOp::kGe;
      p = {3, 3};
      return true;
    case Tok::kConcat:
      op = BinOp::kConcat;
      p = {5, 4};  // right associative, below arithmetic, above comparisons
      return true;
    case Tok::kAnd:
      op = BinOp::kAnd;
      p = {2, 2};
      return true;
    case Tok::kOr:
      op = BinOp::kOr;
      p = {1, 1};
      return true;
    default: return false;
  }
}

class Parser {
 public:
  Parser(const std::string& file, std::vector<Token> tokens) : file_(file), toks_(std::move(tokens)) {}

  Result<Script> run() {
    Script script;
    script.file = file_;
    auto body = block();
    if (!body) return body.error();
    if (cur().kind != Tok::kEof) return fail(cur(), "expected end of file near " + describe(cur()));
    script.body = std::move(*body);
    return script;
  }

 private:
  const Token& cur() const { return toks_[i_]; }
  const Token& ahead(std::size_t n = 1) const { return toks_[std::min(i_ + n, toks_.size() - 1)]; }
  const Token& next() { return toks_[i_ < toks_.size() - 1 ? i_++ : i_]; }
  bool accept(Tok k) {
    if (cur().kind != k) return false;
    next();
    return true;
  }
  Error fail(const Token& at, const std::string& message) const { return fail(at.pos, message); }
  Error fail(Pos p, const std::string& message) const {
    return make_error(file_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.col) + ": " + message);
  }
  Status expect(Tok k, const char* what, const char* context = nullptr) {
    if (accept(k)) return {};
    std::string msg = std::string("expected ") + what;
    if (context) msg += std::string(" ") + context;
    return fail(cur(), msg + " near " + describe(cur()));
  }
  Result<std::string> name(const char* context) {
    if (cur().kind != Tok::kName)
      return fail(cur(), std::string("expected a name ") + context + " near " + describe(cur()));
    return next().text;
  }

  static bool block_ends(Tok k) {
    return k == Tok::kEof || k == Tok::kEnd || k == Tok::kElse || k == Tok::kElseif || k == Tok::kUntil;
  }

  Result<Block> block() {
    Block b;
    while (!block_ends(cur().kind)) {
      if (cur().kind == Tok::kReturn) {
        auto r = return_stat();
        if (!r) return r.error();
        b.push_back(std::move(*r));
        accept(Tok::kSemicolon);
        if (!block_ends(cur().kind)) return fail(cur(), "'return' must be the last statement of a block");
        break;
      }
      auto s = statement();
      if (!s) return s.error();
      if (*s) b.push_back(std::move(*s));
    }
    return b;
  }

  StmtPtr make(StmtKind k, Pos p) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->pos = p;
    return s;
  }

  Result<StmtPtr> return_stat() {
    auto s = make(StmtKind::kReturn, next().pos);
    if (block_ends(cur().kind) || cur().kind == Tok::kSemicolon) return s;
    auto e = expr();
    if (!e) return e.error();
    s->values.push_back(std::move(*e));
    if (cur().kind == Tok::kComma) return fail(cur(), "returning more than one value is outside Kiln's script subset");
    return s;
  }

  Result<StmtPtr> statement() {
    Depth guard(depth_);
    if (too_deep()) return too_deep_error();
    const Token& t = cur();
    switch (t.kind) {
      case Tok::kSemicolon: next(); return StmtPtr{};
      case Tok::kBreak: next(); return make(StmtKind::kBreak, t.pos);
      case Tok::kGoto:
      case Tok::kDoubleColon: return fail(t, "goto and labels are outside Kiln's script subset");
      case Tok::kDo: {
        auto s = make(StmtKind::kDo, next().pos);
        return body_until_end(std::move(s), "to close 'do'");
      }
      case Tok::kWhile: {
        auto s = make(StmtKind::kWhile, next().pos);
        auto c = expr();
        if (!c) return c.error();
        s->expr = std::move(*c);
        KILN_TRY(expect(Tok::kDo, "'do'", "after the 'while' condition"));
        return body_until_end(std::move(s), "to close 'while'");
      }
      case Tok::kRepeat: {
        auto s = make(StmtKind::kRepeat, next().pos);
        auto b = block();
        if (!b) return b.error();
        s->body = std::move(*b);
        KILN_TRY(expect(Tok::kUntil, "'until'", "to close 'repeat'"));
        auto c = expr();
        if (!c) return c.error();
        s->expr = std::move(*c);
        return s;
      }
      case Tok::kIf: return if_stat();
      case Tok::kFor: return for_stat();
      case Tok::kFunction: return function_stat(false);
      case Tok::kLocal:
        if (ahead().kind == Tok::kFunction) {
          next();
          return function_stat(true);
        }
        return local_stat();
      default: return expr_stat();
    }
  }

  Result<StmtPtr> body_until_end(StmtPtr s, const char* context) {
    auto b = block();
    if (!b) return b.error();
    s->body = std::move(*b);
    KILN_TRY(expect(Tok::kEnd, "'end'", context));
    return s;
  }

  Result<StmtPtr> if_stat() {
    auto s = make(StmtKind::kIf, next().pos);
    for (;;) {
      auto c = expr();
      if (!c) return c.error();
      s->conds.push_back(std::move(*c));
      KILN_TRY(expect(Tok::kThen, "'then'", "after the condition"));
      auto b = block();
      if (!b) return b.error();
      s->blocks.push_back(std::move(*b));
      if (accept(Tok::kElseif)) continue;
      if (accept(Tok::kElse)) {
        auto e = block();
        if (!e) return e.error();
        s->blocks.push_back(std::move(*e));
      }
      KILN_TRY(expect(Tok::kEnd, "'end'", "to close 'if'"));
      return s;
    }
  }

  Result<StmtPtr> for_stat() {
    auto s = make(StmtKind::kNumericFor, next().pos);
    const Pos name_pos = cur().pos;
    auto n = name("after 'for'");
    if (!n) return n.error();
    if (cur().kind == Tok::kComma || cur().kind == Tok::kIn)
      return fail(cur(), "generic for (for ... in ...) is outside Kiln's script subset; use a numeric for");
    s->names.push_back(*n);
    s->name_pos.push_back(name_pos);
    KILN_TRY(expect(Tok::kAssign, "'='", "in the numeric for"));
    for (int k = 0; k < 3; ++k) {
      auto v = expr();
      if (!v) return v.error();
      s->values.push_back(std::move(*v));
      if (k == 0) {
        KILN_TRY(expect(Tok::kComma, "','", "after the for start"));
      } else if (!accept(Tok::kComma)) {
        break;
      }
    }
    KILN_TRY(expect(Tok::kDo, "'do'", "after the for header"));
    return body_until_end(std::move(s), "to close 'for'");
  }

  Result<StmtPtr> function_stat(bool is_local) {
    const Pos pos = next().pos;  // 'function'
    auto s = make(StmtKind::kFunction, pos);
    auto f = std::make_unique<FunctionDef>();
    f->pos = cur().pos;
    f->is_local = is_local;
    auto n = name("after 'function'");
    if (!n) return n.error();
    f->name = *n;
    if (cur().kind == Tok::kDot || cur().kind == Tok::kColon)
      return fail(cur(), "function names with '.' or ':' (methods, table fields) are outside Kiln's script subset");
    KILN_TRY(funcbody(*f));
    s->function = std::move(f);
    return s;
  }

  Status funcbody(FunctionDef& f) {
    KILN_TRY(expect(Tok::kLParen, "'('", "to open the parameter list"));
    if (cur().kind != Tok::kRParen) {
      for (;;) {
        if (cur().kind == Tok::kEllipsis) return fail(cur(), "varargs (...) are outside Kiln's script subset");
        f.param_pos.push_back(cur().pos);
        auto p = name("in the parameter list");
        if (!p) return p.error();
        f.params.push_back(*p);
        if (!accept(Tok::kComma)) break;
      }
    }
    KILN_TRY(expect(Tok::kRParen, "')'", "to close the parameter list"));
    auto b = block();
    if (!b) return b.error();
    f.body = std::move(*b);
    return expect(Tok::kEnd, "'end'", "to close 'function'");
  }

  Result<StmtPtr> local_stat() {
    auto s = make(StmtKind::kLocal, next().pos);
    for (;;) {
      s->name_pos.push_back(cur().pos);
      auto n = name("after 'local'");
      if (!n) return n.error();
      s->names.push_back(*n);
      if (!accept(Tok::kComma)) break;
    }
    if (accept(Tok::kAssign)) {
      auto values = expr_list();
      if (!values) return values.error();
      s->values = std::move(*values);
    }
    return s;
  }

  Result<StmtPtr> expr_stat() {
    const Pos pos = cur().pos;
    auto first = suffixed_expr();
    if (!first) return first.error();
    if (cur().kind == Tok::kAssign || cur().kind == Tok::kComma) {
      auto s = make(StmtKind::kAssign, pos);
      s->targets.push_back(std::move(*first));
      while (accept(Tok::kComma)) {
        auto t = suffixed_expr();
        if (!t) return t.error();
        s->targets.push_back(std::move(*t));
      }
      for (const auto& t : s->targets)
        if (t->kind != ExprKind::kName && t->kind != ExprKind::kIndex && t->kind != ExprKind::kField)
          return fail(t->pos, "cannot assign to this expression");
      KILN_TRY(expect(Tok::kAssign, "'='", "in the assignment"));
      auto values = expr_list();
      if (!values) return values.error();
      s->values = std::move(*values);
      return s;
    }
    if ((*first)->kind != ExprKind::kCall)
      return fail(pos, "syntax error: a statement must be an assignment or a call");
    auto s = make(StmtKind::kCall, pos);
    s->expr = std::move(*first);
    return s;
  }

  Result<std::vector<ExprPtr>> expr_list() {
    std::vector<ExprPtr> out;
    for (;;) {
      auto e = expr();
      if (!e) return e.error();
      out.push_back(std::move(*e));
      if (!accept(Tok::kComma)) return out;
    }
  }

  ExprPtr make_expr(ExprKind k, Pos p) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->pos = p;
    return e;
  }

  // Every recursive construct goes through a Depth: input, not the C++ stack, decides how deep.
  static constexpr int kMaxDepth = 200;
  static constexpr int kMaxChain = 1000;
  struct Depth {
    int& depth;
    explicit Depth(int& d) : depth(++d) {}
    ~Depth() { --depth; }
  };
  bool too_deep() const { return depth_ > kMaxDepth; }
  Error too_deep_error() const {
    return fail(cur(), "nesting too deep (more than " + std::to_string(kMaxDepth) + " levels)");
  }

  Result<ExprPtr> expr(int limit = 0) {
    Depth guard(depth_);
    if (too_deep()) return too_deep_error();
    ExprPtr left;
    const Token& t = cur();
    if (t.kind == Tok::kMinus || t.kind == Tok::kNot || t.kind == Tok::kHash) {
      next();
      auto operand = expr(kUnaryPriority);
      if (!operand) return operand.error();
      left = make_expr(ExprKind::kUnary, t.pos);
      left->unop = t.kind == Tok::kMinus ? UnOp::kNeg : t.kind == Tok::kNot ? UnOp::kNot : UnOp::kLen;
      left->a = std::move(*operand);
    } else {
      auto simple = simple_expr();
      if (!simple) return simple.error();
      left = std::move(*simple);
    }
    for (int chain = 0;; ++chain) {
      // A left-associative chain grows the tree without recursing here; later passes recurse on it.
      if (depth_ + chain > kMaxChain)
        return fail(cur(), "expression too long (more than " + std::to_string(kMaxChain) + " operators in a chain)");
      BinOp op;
      Priority p;
      if (!binary_op(cur().kind, op, p) || p.left <= limit) return left;
      const Pos pos = next().pos;
      auto right = expr(p.right);
      if (!right) return right.error();
      auto bin = make_expr(ExprKind::kBinary, pos);
      bin->binop = op;
      bin->a = std::move(left);
      bin->b = std::move(*right);
      left = std::move(bin);
    }
  }

  Result<ExprPtr> simple_expr() {
    const Token& t = cur();
    switch (t.kind) {
      case Tok::kNumber: {
        auto e = make_expr(ExprKind::kNumber, t.pos);
        e->number = next().number;
        return e;
      }
      case Tok::kTrue:
      case Tok::kFalse: {
        auto e = make_expr(ExprKind::kBool, t.pos);
        e->boolean = next().kind == Tok::kTrue;
        return e;
      }
      case Tok::kString: {
        auto e = make_expr(ExprKind::kString, t.pos);
        e->text = next().text;
        return e;
      }
      case Tok::kNil: return fail(t, "nil is outside Kiln's script subset (values are numbers, booleans and arrays)");
      case Tok::kEllipsis: return fail(t, "varargs (...) are outside Kiln's script subset");
      case Tok::kFunction: {  // an anonymous function: a value
        auto e = make_expr(ExprKind::kFunction, next().pos);
        e->function = std::make_shared<FunctionDef>();
        e->function->pos = t.pos;
        e->function->is_local = true;
        e->function->name = "function at " + std::to_string(t.pos.line) + ":" + std::to_string(t.pos.col);
        KILN_TRY(funcbody(*e->function));
        return e;
      }
      case Tok::kLBrace: return table();
      default: return suffixed_expr();
    }
  }

  // {a, b, c} is an array, {x = a, y = b} a record; a table is one or the other.
  Result<ExprPtr> table() {
    auto e = make_expr(ExprKind::kTable, next().pos);
    while (cur().kind != Tok::kRBrace) {
      if (cur().kind == Tok::kLBracket)
        return fail(cur(),
                    "computed keys ([k] = v) are outside Kiln's script subset; a record's fields are "
                    "written {x = a, y = b}");
      const bool keyed = cur().kind == Tok::kName && ahead().kind == Tok::kAssign;
      if (!e->items.empty() && keyed != !e->keys.empty())
        return fail(cur(), "a table is an array {a, b} or a record {x = a, y = b}, not both");
      if (keyed) {
        e->key_pos.push_back(cur().pos);
        e->keys.push_back(next().text);
        next();  // '='
      }
      auto item = expr();
      if (!item) return item.error();
      e->items.push_back(std::move(*item));
      if (!accept(Tok::kComma) && !accept(Tok::kSemicolon)) break;
    }
    KILN_TRY(expect(Tok::kRBrace, "'}'", "to close the table"));
    return e;
  }

  Result<ExprPtr> primary_expr() {
    const Token& t = cur();
    if (t.kind == Tok::kName) {
      auto e = make_expr(ExprKind::kName, t.pos);
      e->text = next().text;
      return e;
    }
    if (t.kind == Tok::kLParen) {
      next();
      auto inner = expr();
      if (!inner) return inner.error();
      KILN_TRY(expect(Tok::kRParen, "')'", "to close '('"));
      return inner;
    }
    return fail(t, "unexpected " + describe(t));
  }

  Result<ExprPtr> suffixed_expr() {
    auto e = primary_expr();
    if (!e) return e.error();
    ExprPtr left = std::move(*e);
    for (int chain = 0;; ++chain) {
      if (depth_ + chain > kMaxChain)
        return fail(cur(), "expression too long (more than " + std::to_string(kMaxChain) + " suffixes in a chain)");
      const Token& t = cur();
      switch (t.kind) {
        case Tok::kDot: {
          next();
          auto field = make_expr(ExprKind::kField, left->pos);  // "math.floor" starts at "math"
          auto n = name("after '.'");
          if (!n) return n.error();
          field->text = *n;
          field->a = std::move(left);
          left = std::move(field);
          break;
        }
        case Tok::kLBracket: {
          next();
          auto index = expr();
          if (!index) return index.error();
          KILN_TRY(expect(Tok::kRBracket, "']'", "to close the index"));
          auto ix = make_expr(ExprKind::kIndex, t.pos);
          ix->a = std::move(left);
          ix->b = std::move(*index);
          left = std::move(ix);
          break;
        }
        case Tok::kColon: {  // s:f(args) is string.f(s, args): strings are the only values with methods
          next();
          const Pos method_pos = cur().pos;
          auto method = name("after ':'");
          if (!method) return method.error();
          if (cur().kind != Tok::kLParen) return fail(cur(), "expected '(' after the method name");
          next();
          auto call = make_expr(ExprKind::kCall, left->pos);
          call->method = true;
          call->a = make_expr(ExprKind::kField, method_pos);
          call->a->text = *method;
          call->items.push_back(std::move(left));
          if (cur().kind != Tok::kRParen) {
            auto args = expr_list();
            if (!args) return args.error();
            for (auto& arg : *args) call->items.push_back(std::move(arg));
          }
          KILN_TRY(expect(Tok::kRParen, "')'", "to close the call"));
          left = std::move(call);
          break;
        }
        case Tok::kString:
        case Tok::kLBrace:
          return fail(t, "calls without parentheses (f\"x\", f{...}) are outside Kiln's script subset");
        case Tok::kLParen: {
          next();
          auto call = make_expr(ExprKind::kCall, left->pos);
          call->a = std::move(left);
          if (cur().kind != Tok::kRParen) {
            auto args = expr_list();
            if (!args) return args.error();
            call->items = std::move(*args);
          }
          KILN_TRY(expect(Tok::kRParen, "')'", "to close the call"));
          left = std::move(call);
          break;
        }
        default: return left;
      }
    }
  }

  const std::string& file_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<Script> parse_script(const std::string& file, std::string_view source) {
  auto tokens = lex(file, source);
  if (!tokens) return tokens.error();
  return Parser(file, std::move(*tokens)).run();
}

}  // namespace kiln::lang
