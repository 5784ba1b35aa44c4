#include "program_generator.h"

#include <optional>
#include <random>
#include <vector>

namespace kiln::test {
namespace {

// Numbers, booleans, arrays of numbers, strings, records {x, y, tag} and closures of one number.
enum class T { kNum, kBool, kArr, kStr, kRec, kFn };

struct Var {
  std::string name;
  T type;
  bool counter = false;  // a loop bound: read, never assigned, so that every loop ends
};

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  std::string program() {
    scopes_.emplace_back();
    const int globals = pick(2, 5);
    for (int i = 0; i < globals; ++i) declare_local(0);
    const int functions = pick(0, 4);
    for (int i = 0; i < functions; ++i) function();
    const int statements = pick(3, 10);
    for (int i = 0; i < statements; ++i) statement(0, 0);
    // Print every module variable at the end, so that all state reaches the output.
    for (const auto& v : scopes_.front()) {
      if (v.type == T::kArr)
        line(0, "print(#" + v.name + ", " + v.name + "[1], " + v.name + "[#" + v.name + "])");
      else if (v.type == T::kRec)
        line(0, "print(" + v.name + ".x, " + v.name + ".y, " + v.name + ".tag)");
      else if (v.type == T::kFn)
        line(0, "print(" + v.name + "(1))");
      else
        line(0, "print(" + v.name + ")");
    }
    return out_;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int percent) { return pick(1, 100) <= percent; }
  void line(int indent, const std::string& s) { out_ += std::string(indent * 2, ' ') + s + "\n"; }
  std::string fresh(const char* prefix) { return prefix + std::to_string(counter_++); }

  std::vector<Var> visible(T type, bool assignable = false) const {
    std::vector<Var> out;
    for (const auto& scope : scopes_)
      for (const auto& v : scope)
        if (v.type == type && !(assignable && v.counter)) out.push_back(v);
    return out;
  }

  // Never a zero: Lua 5.1 and LuaJIT intern a function's number constants by value, so a folded
  // -0 constant turns later 0 literals into -0 there; Kiln keeps each literal (README: corner cases).
  std::string number_literal() {
    switch (pick(0, 3)) {
      case 0: return std::to_string(pick(1, 9));
      case 1: return std::to_string(pick(10, 1000));
      case 2: return std::to_string(pick(0, 99)) + "." + std::to_string(pick(1, 99));
      default: return std::to_string(pick(1, 9)) + "e" + std::to_string(pick(-3, 3));
    }
  }

  // The name of a visible variable of `type`, or nothing.
  std::optional<std::string> any(T type) {
    const auto vars = visible(type);
    if (vars.empty()) return std::nullopt;
    return vars[pick(0, static_cast<int>(vars.size()) - 1)].name;
  }

  // Strings: literals, variables, joins with strings and numbers, the string library.
  std::string str(int depth) {
    static const char* words[] = {"\"a\"", "\"kiln\"", "\"xy z\"", "\"Q\"", "'tab\\t'", "\"0\""};
    const auto v = any(T::kStr);
    if (depth > 3 || chance(25)) {
      if (v && chance(60)) return *v;
      return words[pick(0, 5)];
    }
    switch (pick(0, 7)) {
      case 0:
      case 1: return "(" + str(depth + 1) + " .. " + str(depth + 1) + ")";
      case 2: return "(" + str(depth + 1) + " .. " + num(depth + 1) + ")";
      case 3:
        return "string.sub(" + str(depth + 1) + ", " + std::to_string(pick(-3, 3)) + ", " +
               std::to_string(pick(-2, 4)) + ")";
      case 4: return std::string("(") + str(depth + 1) + (chance(50) ? "):upper()" : "):lower()");
      case 5: return "string.rep(" + str(depth + 1) + ", " + std::to_string(pick(0, 3)) + ")";
      case 6:
        return "string.format(\"%d|%5.2f|%s\", math.floor(" + num(depth + 1) + "), " + num(depth + 1) + ", " +
               str(depth + 1) + ")";
      default: {
        const auto r = any(T::kRec);
        return r ? *r + ".tag" : "tostring(" + num(depth + 1) + ")";
      }
    }
  }

  std::string num(int depth) {
    const auto vars = visible(T::kNum);
    const auto arrays = visible(T::kArr);
    if (depth > 3 || chance(25)) {
      if (!vars.empty() && chance(60)) return vars[pick(0, static_cast<int>(vars.size()) - 1)].name;
      return number_literal();
    }
    switch (pick(0, 9)) {
      case 0:
      case 1: {
        static const char* ops[] = {"+", "-", "*", "/", "%", "^"};
        const char* op = ops[pick(0, 5)];
        if (std::string(op) == "^") return "(" + num(depth + 1) + " ^ " + std::to_string(pick(0, 3)) + ")";
        return "(" + num(depth + 1) + " " + op + " " + num(depth + 1) + ")";
      }
      case 2: return "(-" + num(depth + 1) + ")";
      case 3: {
        static const char* fns[] = {"math.floor", "math.abs", "math.ceil", "math.sin", "math.cos"};
        return std::string(fns[pick(0, 4)]) + "(" + num(depth + 1) + ")";
      }
      case 4: return std::string(chance(50) ? "math.min(" : "math.max(") + num(depth + 1) + ", " + num(depth + 1) + ")";
      case 5:
        if (!arrays.empty()) {
          const std::string a = arrays[pick(0, static_cast<int>(arrays.size()) - 1)].name;
          return chance(30) ? "(#" + a + ")"
                            : a + "[" + std::to_string(pick(1, 3)) + "]";  // arrays start with 3 elements
        }
        return number_literal();
      case 6:
        if (!functions_.empty()) {
          const auto& f = functions_[pick(0, static_cast<int>(functions_.size()) - 1)];
          std::string call = f.first + "(";
          for (int i = 0; i < f.second; ++i) call += (i ? ", " : "") + num(depth + 2);
          return call + ")";
        }
        return number_literal();
      case 7: return "(" + boolean(depth + 1) + " and " + num(depth + 1) + " or " + num(depth + 1) + ")";
      case 8: {
        const auto r = chance(50) ? any(T::kRec) : std::nullopt;
        if (r) return *r + (chance(50) ? ".x" : ".y");
        const auto f = chance(50) ? any(T::kFn) : std::nullopt;
        if (f) {
          const std::string arg = num(depth + 2);
          return *f + "(" + arg + ")";
        }
        return "(#" + str(depth + 1) + ")";
      }
      default: return vars.empty() ? number_literal() : vars[pick(0, static_cast<int>(vars.size()) - 1)].name;
    }
  }

  std::string boolean(int depth) {
    const auto vars = visible(T::kBool);
    if (depth > 3 || chance(20)) {
      if (!vars.empty() && chance(60)) return vars[pick(0, static_cast<int>(vars.size()) - 1)].name;
      return chance(50) ? "true" : "false";
    }
    static const char* cmp[] = {"<", "<=", ">", ">=", "==", "~="};
    switch (pick(0, 5)) {
      case 0:
      case 1: return "(" + num(depth + 1) + " " + cmp[pick(0, 5)] + " " + num(depth + 1) + ")";
      case 2: return "(not " + boolean(depth + 1) + ")";
      case 3: return "(" + boolean(depth + 1) + (chance(50) ? " and " : " or ") + boolean(depth + 1) + ")";
      case 4:
        if (chance(50)) return "(" + str(depth + 1) + " " + cmp[pick(0, 5)] + " " + str(depth + 1) + ")";
        [[fallthrough]];
      default: return "(" + boolean(depth + 1) + " == " + boolean(depth + 1) + ")";
    }
  }

  void declare_local(int indent) {
    const int kind = pick(0, 13);
    if (kind == 10) {
      const std::string name = fresh("s");
      line(indent, "local " + name + " = " + str(0));
      scopes_.back().push_back({name, T::kStr});
    } else if (kind == 11) {
      const std::string name = fresh("r");
      line(indent, "local " + name + " = {x = " + num(1) + ", tag = " + str(1) + ", y = " + num(1) + "}");
      scopes_.back().push_back({name, T::kRec});
    } else if (kind == 12) {
      // A closure over a local of its maker: each call changes and returns the captured sum.
      const std::string name = fresh("c"), maker = fresh("mk"), acc = fresh("acc");
      line(indent, "local function " + maker + "(start)");
      line(indent + 1, "local " + acc + " = start");
      line(indent + 1, "return function(d) " + acc + " = " + acc + " + d return " + acc + " end");
      line(indent, "end");
      line(indent, "local " + name + " = " + maker + "(" + num(1) + ")");
      scopes_.back().push_back({name, T::kFn});
    } else if (kind < 6) {
      const std::string name = fresh("n");
      line(indent, "local " + name + " = " + num(0));
      scopes_.back().push_back({name, T::kNum});
    } else if (kind < 8) {
      const std::string name = fresh("b");
      line(indent, "local " + name + " = " + boolean(0));
      scopes_.back().push_back({name, T::kBool});
    } else {
      const std::string name = fresh("a");
      line(indent, "local " + name + " = {" + num(1) + ", " + num(1) + ", " + num(1) + "}");
      scopes_.back().push_back({name, T::kArr});
    }
  }

  void function() {
    const std::string name = fresh("f");
    const int params = pick(0, 3);
    std::string header = "function " + name + "(";
    scopes_.emplace_back();
    // Parameters shadow nothing and are numbers; the body may read module variables declared so far.
    for (int i = 0; i < params; ++i) {
      const std::string p = fresh("p");
      header += (i ? ", " : "") + p;
      scopes_.back().push_back({p, T::kNum});
    }
    line(0, header + ")");
    // Fix each parameter's type to number, as the checker wants, without changing any value.
    for (const auto& p : scopes_.back()) line(1, "if " + p.name + " > " + p.name + " then end");
    const int statements = pick(0, 4);
    for (int i = 0; i < statements; ++i) statement(1, 1);
    line(1, "return " + num(0));
    line(0, "end");
    scopes_.pop_back();
    functions_.push_back({name, params});
  }

  void assign(int indent) {
    const int kind = pick(0, 3);
    const auto nums = visible(T::kNum, true);
    const auto bools = visible(T::kBool);
    const auto arrays = visible(T::kArr);
    if (kind == 0 && !nums.empty()) {
      line(indent, nums[pick(0, static_cast<int>(nums.size()) - 1)].name + " = " + num(0));
    } else if (kind == 1 && !bools.empty()) {
      line(indent, bools[pick(0, static_cast<int>(bools.size()) - 1)].name + " = " + boolean(0));
    } else if (kind == 3 && chance(50) && any(T::kStr)) {
      // Cut to 40 bytes: in a loop, s = s .. s would double every iteration.
      const std::string v = *any(T::kStr);
      line(indent, v + " = string.sub(" + str(0) + ", 1, 40)");
    } else if (kind == 3 && any(T::kRec)) {
      const std::string r = *any(T::kRec);
      if (chance(70))
        line(indent, r + (chance(50) ? ".x" : ".y") + " = " + num(0));
      else
        line(indent, r + ".tag = string.sub(" + str(1) + ", 1, 40)");
    } else if (kind == 2 && !arrays.empty()) {
      const std::string a = arrays[pick(0, static_cast<int>(arrays.size()) - 1)].name;
      if (chance(50))
        line(indent, a + "[#" + a + " + 1] = " + num(0));
      else
        line(indent, a + "[" + std::to_string(pick(1, 3)) + "] = " + num(0));
    } else if (nums.size() >= 2) {
      const std::string x = nums[0].name, y = nums[nums.size() - 1].name;
      if (x != y) line(indent, x + ", " + y + " = " + y + ", " + x);
    }
  }

  void statement(int indent, int depth) {
    const int kind = depth > 2 ? pick(0, 3) : pick(0, 9);
    switch (kind) {
      case 0: declare_local(indent); return;
      case 1:
      case 2: assign(indent); return;
      case 3: {
        std::string args;
        const int n = pick(1, 3);
        for (int i = 0; i < n; ++i) args += (i ? ", " : "") + (chance(60) ? num(0) : chance(50) ? str(0) : boolean(0));
        line(indent, "print(" + args + ")");
        return;
      }
      case 4:
      case 5: {
        line(indent, "if " + boolean(0) + " then");
        block(indent + 1, depth + 1);
        if (chance(40)) {
          line(indent, "elseif " + boolean(0) + " then");
          block(indent + 1, depth + 1);
        }
        if (chance(50)) {
          line(indent, "else");
          block(indent + 1, depth + 1);
        }
        line(indent, "end");
        return;
      }
      case 6: {
        const std::string i = fresh("i");
        line(indent, "for " + i + " = " + std::to_string(pick(-2, 2)) + ", " + std::to_string(pick(0, 6)) +
                         (chance(30) ? ", " + std::to_string(chance(50) ? 2 : -1) : "") + " do");
        scopes_.emplace_back();
        scopes_.back().push_back({i, T::kNum, true});
        block(indent + 1, depth + 1, false);
        scopes_.pop_back();
        line(indent, "end");
        return;
      }
      case 7: {
        const std::string c = fresh("c");
        line(indent, "local " + c + " = 0");
        scopes_.back().push_back({c, T::kNum, true});
        line(indent, "while " + c + " < " + std::to_string(pick(1, 5)) + " and " + boolean(1) + " do");
        line(indent + 1, c + " = " + c + " + 1");
        block(indent + 1, depth + 1);
        if (chance(20)) line(indent + 1, "if " + boolean(1) + " then break end");
        line(indent, "end");
        return;
      }
      case 8: {
        const std::string c = fresh("r");
        line(indent, "local " + c + " = 0");
        scopes_.back().push_back({c, T::kNum, true});
        line(indent, "repeat");
        line(indent + 1, c + " = " + c + " + 1");
        block(indent + 1, depth + 1);
        line(indent, "until " + c + " >= " + std::to_string(pick(1, 4)) + " or " + boolean(1));
        return;
      }
      default: {
        line(indent, "do");
        block(indent + 1, depth + 1);
        line(indent, "end");
        return;
      }
    }
  }

  void block(int indent, int depth, bool scope = true) {
    if (scope) scopes_.emplace_back();
    const int n = pick(1, 3);
    for (int i = 0; i < n; ++i) statement(indent, depth);
    if (scope) scopes_.pop_back();
  }

  std::mt19937_64 rng_;
  std::string out_;
  int counter_ = 0;
  std::vector<std::vector<Var>> scopes_;
  std::vector<std::pair<std::string, int>> functions_;
};

}  // namespace

std::string generate_program(std::uint64_t seed) { return Generator(seed).program(); }

}  // namespace kiln::test
