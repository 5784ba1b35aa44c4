// The checker: calls of script functions, function values, methods, print, math.*, string.* and engine.*.

#include <algorithm>
#include "kiln/core/text.h"
#include "kiln/jit/string_format.h"

#include "checker_impl.h"

namespace kiln::lang::detail {

const std::map<std::string, std::pair<MathFn, int>>& math_functions() {  // name -> (fn, arity; -1: one or more)
  static const std::map<std::string, std::pair<MathFn, int>> m = {
      {"abs", {MathFn::kAbs, 1}},     {"floor", {MathFn::kFloor, 1}}, {"ceil", {MathFn::kCeil, 1}},
      {"sqrt", {MathFn::kSqrt, 1}},   {"sin", {MathFn::kSin, 1}},     {"cos", {MathFn::kCos, 1}},
      {"tan", {MathFn::kTan, 1}},     {"asin", {MathFn::kAsin, 1}},   {"acos", {MathFn::kAcos, 1}},
      {"atan", {MathFn::kAtan, 1}},   {"exp", {MathFn::kExp, 1}},     {"log", {MathFn::kLog, 1}},
      {"log10", {MathFn::kLog10, 1}}, {"fmod", {MathFn::kFmod, 2}},   {"pow", {MathFn::kPow, 2}},
      {"atan2", {MathFn::kAtan2, 2}}, {"min", {MathFn::kMin, -1}},    {"max", {MathFn::kMax, -1}}};
  return m;
}

Result<int> Checker::call(const Expr& e) {
  const Expr& callee = *e.a;
  if (e.method) return method_call(e);
  if (callee.kind == ExprKind::kName) {
    const Symbol* s = lookup(callee.text);
    if (!s && callee.text == "print") return print_call(e);
    if (s && s->kind == Symbol::kFunction) {
      function_uses_.push_back({&callee, &e, s->function, s->var, cur_fn()});
      return script_call(e, s->function);
    }
    if (!s && globals_.count(callee.text)) return script_call(e, globals_.at(callee.text));
    if (s) return indirect_call(e, "'" + callee.text + "'");  // a variable holding a function value
    if (!globals_.count(callee.text) && (callee.text == "tostring" || callee.text == "tonumber"))
      return string_call(e, callee.text);
    return fail(callee.pos, "unknown function '" + callee.text + "'");
  }
  if (callee.kind == ExprKind::kField && callee.a->kind == ExprKind::kName && !lookup(callee.a->text)) {
    if (callee.a->text == "math") return math_call(e);
    if (callee.a->text == "engine") return host_call(e);
    if (callee.a->text == "string") return string_call(e, "string." + callee.text);
  }
  if (callee.kind == ExprKind::kField) return indirect_call(e, "'" + callee.text + "'");  // a record's field
  return indirect_call(e, "this");  // any other expression: a function value
}

Result<std::vector<int>> Checker::call_args(const Expr& e, bool print) {
  std::vector<int> args;
  for (const auto& arg : e.items) {
    if (print && arg->kind == ExprKind::kString) {
      args.push_back(record(*arg, solver_.fresh(K::kStr)));
      continue;
    }
    auto tv = value(*arg);
    if (!tv) return tv.error();
    args.push_back(*tv);
  }
  return args;
}

Result<int> Checker::print_call(const Expr& e) {
  auto args = call_args(e, true);
  if (!args) return args.error();
  for (std::size_t i = 0; i < args->size(); ++i)
    deferred_.push_back({[this, tv = (*args)[i], pos = e.items[i]->pos]() -> Status {
      const K k = solver_.kind(tv);
      if (k == K::kArray)
        return fail(pos, "print of an array is outside Kiln's script subset (Lua prints its address)");
      if (k == K::kFunc)
        return fail(pos, "print of a function is outside Kiln's script subset (Lua prints its address)");
      if (k == K::kRecord)
        return fail(pos, "print of a record is outside Kiln's script subset (Lua prints its address)");
      if (k == K::kUnknown)
        return fail(pos, "the type of this value is never fixed by the script, so it cannot be printed");
      return {};
    }});
  out_.calls[&e] = {CallTarget::kPrint, 0};
  return record(e, solver_.fresh(K::kVoid));
}

Result<int> Checker::script_call(const Expr& e, int fn) {
  auto args = call_args(e);
  if (!args) return args.error();
  const FunctionDef& def = *out_.functions[fn].def;
  if (args->size() != def.params.size())
    return fail(e.pos, "function '" + def.name + "' takes " + std::to_string(def.params.size()) + " arguments, not " +
                           std::to_string(args->size()) + " (defined at " + at(def.pos) + ")");
  for (std::size_t i = 0; i < args->size(); ++i)
    if (!solver_.unify(states_[fn].param_tvs[i], (*args)[i]))
      return fail(e.items[i]->pos, "argument " + std::to_string(i + 1) + " of '" + def.name + "' is " +
                                       solver_.describe((*args)[i]) + " here but " +
                                       solver_.describe(states_[fn].param_tvs[i]) + " elsewhere");
  out_.calls[&e] = {CallTarget::kScript, fn};
  return record(e, states_[fn].result_tv);
}

Result<int> Checker::indirect_call(const Expr& e, const std::string& shown) {
  const Expr& callee = *e.a;
  auto tv = value(callee);
  if (!tv) return tv;
  auto args = call_args(e);
  if (!args) return args.error();
  const int result = solver_.fresh();
  if (!solver_.unify(*tv, solver_.function_of(*args, result)))
    return fail(callee.pos, shown + " is " + solver_.describe(*tv) + ", not a function of " +
                                std::to_string(args->size()) + " arguments");
  out_.calls[&e] = {CallTarget::kIndirect, 0};
  return record(e, result);
}

Result<int> Checker::method_call(const Expr& e) {
  auto obj = value(*e.items[0]);
  if (!obj) return obj;
  if (solver_.kind(*obj) != K::kRecord) return string_call(e, "string." + e.a->text, *obj);
  const int callee = solver_.fresh();
  pending_fields_.push_back({e.a.get(), *obj, callee, false});
  KILN_TRY(resolve_field(pending_fields_.back(), false));
  std::vector<int> args = {*obj};
  for (std::size_t i = 1; i < e.items.size(); ++i) {
    auto tv = value(*e.items[i]);
    if (!tv) return tv;
    args.push_back(*tv);
  }
  const int result = solver_.fresh();
  const std::string before = solver_.describe(callee);
  if (!solver_.unify(callee, solver_.function_of(args, result)))
    return fail(e.a->pos, "'" + e.a->text + "' is " + before + ", not a function of " + std::to_string(args.size()) +
                              " arguments (the object is the first)");
  out_.calls[&e] = {CallTarget::kIndirect, 0};
  return record(e, result);
}

Result<int> Checker::string_call(const Expr& e, const std::string& name, std::optional<int> first) {
  struct Signature {
    StringFn fn;
    std::size_t min_args, max_args;
    K first;  // the first argument: kStr, kNum, or kUnknown for "a number, a boolean or a string"
    K rest;   // the others, the same way
    K result;
  };
  static const std::map<std::string, Signature> table = {
      {"tostring", {StringFn::kToString, 1, 1, K::kUnknown, K::kNum, K::kStr}},
      {"tonumber", {StringFn::kToNumber, 1, 1, K::kUnknown, K::kNum, K::kNum}},
      {"string.len", {StringFn::kLen, 1, 1, K::kStr, K::kNum, K::kNum}},
      {"string.sub", {StringFn::kSub, 2, 3, K::kStr, K::kNum, K::kStr}},
      {"string.upper", {StringFn::kUpper, 1, 1, K::kStr, K::kNum, K::kStr}},
      {"string.lower", {StringFn::kLower, 1, 1, K::kStr, K::kNum, K::kStr}},
      {"string.rep", {StringFn::kRep, 2, 2, K::kStr, K::kNum, K::kStr}},
      {"string.byte", {StringFn::kByte, 1, 2, K::kStr, K::kNum, K::kNum}},
      {"string.char", {StringFn::kChar, 0, jit::kMaxStringArgs, K::kNum, K::kNum, K::kStr}},
      {"string.format", {StringFn::kFormat, 1, jit::kMaxStringArgs, K::kStr, K::kUnknown, K::kStr}},
  };
  const auto it = table.find(name);
  if (it == table.end())
    return fail(e.a->pos, name + " is outside Kiln's script subset (its string functions: tostring, tonumber, " +
                              "string.sub len upper lower rep byte char format)");
  const Signature& sig = it->second;
  Result<std::vector<int>> args = std::vector<int>{};
  if (first) {
    args->push_back(*first);
    for (std::size_t i = 1; i < e.items.size(); ++i) {
      auto tv = value(*e.items[i]);
      if (!tv) return tv;
      args->push_back(*tv);
    }
  } else {
    args = call_args(e);
  }
  if (!args) return args.error();
  if (args->size() < sig.min_args || args->size() > sig.max_args)
    return fail(e.pos, name + " takes " +
                           (sig.min_args == sig.max_args ? std::to_string(sig.min_args)
                            : sig.max_args == jit::kMaxStringArgs
                                ? "at most " + std::to_string(sig.max_args)
                                : std::to_string(sig.min_args) + " or " + std::to_string(sig.max_args)) +
                           " arguments, not " + std::to_string(args->size()));
  for (std::size_t i = 0; i < args->size(); ++i) {
    const int tv = (*args)[i];
    const K want = i == 0 ? sig.first : sig.rest;
    const Pos pos = e.items[i]->pos;
    if (want != K::kUnknown) {
      if (!solver_.unify(tv, solver_.fresh(want)))
        return fail(pos, "argument " + std::to_string(i + 1) + " of " + name + " must be " +
                             (want == K::kStr ? "a string" : "a number") + ", not " + solver_.describe(tv));
      continue;
    }
    // A number, a string, or (tostring, format) a boolean, known by the end of the script.
    const bool booleans = sig.fn != StringFn::kToNumber;
    deferred_.push_back({[this, tv, pos, name, booleans, i]() -> Status {
      const K k = solver_.kind(tv);
      if (k == K::kNum || k == K::kStr || (booleans && k == K::kBool)) return {};
      if (k == K::kUnknown)
        return fail(pos, "the type of this value is never fixed by the script, so " + name + " cannot take it");
      return fail(pos, "argument " + std::to_string(i + 1) + " of " + name + " must be a number" +
                           (booleans ? ", a boolean" : "") + " or a string, not " + solver_.describe(tv));
    }});
  }
  if (sig.fn == StringFn::kFormat && e.items[0]->kind == ExprKind::kString)
    deferred_.push_back({[this, &e, args = *args]() -> Status { return format_check(e, args); }});
  out_.calls[&e] = {CallTarget::kString, static_cast<int>(sig.fn)};
  return record(e, solver_.fresh(sig.result));
}

Status Checker::format_check(const Expr& e, const std::vector<int>& args) {
  const std::string& pattern = e.items[0]->text;
  std::size_t at = 0, used = 1;
  std::string text;
  for (;;) {
    auto conversion = jit::next_conversion(pattern, at, text);
    if (!conversion) return fail(e.items[0]->pos, "string.format: " + conversion.error().message);
    if (!*conversion) break;
    if (used >= args.size())
      return fail(e.pos, "string.format: the pattern has more conversions than the " + std::to_string(args.size() - 1) +
                             " values given");
    const K k = solver_.kind(args[used]);
    const char letter = (*conversion)->letter;
    if (jit::takes_number(letter) ? k != K::kNum : k == K::kBool)
      return fail(e.items[used]->pos, std::string("string.format: '%") + letter + "' needs " +
                                          (jit::takes_number(letter) ? "a number" : "a string or a number") + ", not " +
                                          solver_.describe(args[used]));
    ++used;
  }
  return {};
}

Result<int> Checker::math_call(const Expr& e) {
  const std::string& name = e.a->text;
  auto it = math_functions().find(name);
  if (it == math_functions().end()) return fail(e.a->pos, "unknown math function 'math." + name + "'");
  auto args = call_args(e);
  if (!args) return args.error();
  const int arity = it->second.second;
  if ((arity < 0 && args->empty()) || (arity >= 0 && static_cast<int>(args->size()) != arity))
    return fail(e.pos, "math." + name + " takes " + (arity < 0 ? std::string("one or more") : std::to_string(arity)) +
                           " arguments");
  for (std::size_t i = 0; i < args->size(); ++i)
    if (!solver_.unify((*args)[i], solver_.fresh(K::kNum)))
      return fail(e.items[i]->pos, "math." + name + " needs numbers, not " + solver_.describe((*args)[i]));
  out_.calls[&e] = {CallTarget::kMath, static_cast<int>(it->second.first)};
  return record(e, solver_.fresh(K::kNum));
}

Result<int> Checker::host_call(const Expr& e) {
  const std::string& name = e.a->text;
  const auto h = std::find_if(host_.begin(), host_.end(), [&](const HostSignature& sig) { return sig.name == name; });
  if (h == host_.end()) {
    std::vector<std::string> names;
    for (const HostSignature& sig : host_) names.push_back("engine." + sig.name);
    return fail(e.a->pos, "unknown host function 'engine." + name + "'" + did_you_mean("engine." + name, names));
  }
  auto args = call_args(e);
  if (!args) return args.error();
  if (args->size() != h->params.size())
    return fail(e.pos, "engine." + name + " takes " + std::to_string(h->params.size()) + " arguments");
  for (std::size_t i = 0; i < args->size(); ++i) {
    const K want = h->params[i] == Type::kBoolean ? K::kBool : K::kNum;
    if (!solver_.unify((*args)[i], solver_.fresh(want)))
      return fail(e.items[i]->pos, "argument " + std::to_string(i + 1) + " of engine." + name + " must be " +
                                       type_name(h->params[i]) + ", not " + solver_.describe((*args)[i]));
  }
  out_.calls[&e] = {CallTarget::kHost, static_cast<int>(h - host_.begin())};
  const K r = h->result == Type::kVoid ? K::kVoid : h->result == Type::kBoolean ? K::kBool : K::kNum;
  return record(e, solver_.fresh(r));
}

}  // namespace kiln::lang::detail
