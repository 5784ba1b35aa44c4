// The checker: expressions, operators, arrays and records.

#include <algorithm>

#include "checker_impl.h"

namespace kiln::lang::detail {

Result<int> Checker::value(const Expr& e) {
  auto tv = expr(e);
  if (!tv) return tv;
  deferred_.push_back({[this, tv = *tv, pos = e.pos]() -> Status {
    if (solver_.kind(tv) == K::kVoid) return fail(pos, "this call returns no value");
    return {};
  }});
  return tv;
}

void Checker::require_known(int tv, Pos pos, const char* use) {
  deferred_.push_back({[this, tv, pos, use]() -> Status {
    if (solver_.kind(tv) == K::kUnknown)
      return fail(pos, std::string("the type of this value is never fixed by the script, so it cannot be ") + use +
                           " (compare it with a number or a boolean to fix it)");
    return {};
  }});
}

Result<int> Checker::condition(const Expr& e) {
  auto tv = value(e);
  if (tv) require_known(*tv, e.pos, "tested for truth");
  return tv;
}

Result<int> Checker::expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kNumber: return record(e, solver_.fresh(K::kNum));
    case ExprKind::kBool: return record(e, solver_.fresh(K::kBool));
    case ExprKind::kString: return record(e, solver_.fresh(K::kStr));
    case ExprKind::kName: {
      const Symbol* s = lookup(e.text);
      if (!s && globals_.count(e.text)) return function_value(e, globals_.at(e.text));
      if (!s) {
        if (is_library(e.text)) return fail(e.pos, "library '" + e.text + "' used as a value");
        return fail(e.pos, "unknown name '" + e.text + "'");
      }
      if (s->kind == Symbol::kFunction) {
        function_uses_.push_back({&e, nullptr, s->function, s->var, cur_fn()});
        return function_value(e, s->function);
      }
      KILN_TRY(reach(*s, e));
      var_uses_.push_back({&e, s->var, cur_fn()});
      return record(e, s->tv);
    }
    case ExprKind::kFunction: {  // an anonymous function: a closure of the current function
      const int index = new_function(*e.function, nullptr);
      states_[index].parent = current_;
      out_.function_exprs[&e] = index;
      KILN_TRY(function_body(*e.function, index));
      return record(e, function_type(index));
    }
    case ExprKind::kField: {
      if (e.a->kind == ExprKind::kName && e.a->text == "math" && !lookup("math")) {
        if (e.text == "pi" || e.text == "huge") return record(e, solver_.fresh(K::kNum));
        if (math_functions().count(e.text))
          return fail(e.pos, "math." + e.text + " used as a value: functions are not values in Kiln's script subset");
        return fail(e.pos, "unknown math member '" + e.text + "'");
      }
      if (e.a->kind == ExprKind::kName && e.a->text == "string" && !lookup("string"))
        return fail(e.pos, "string." + e.text + " used as a value: functions are not values in Kiln's script subset");
      if (e.a->kind == ExprKind::kName && e.a->text == "engine" && !lookup("engine"))
        return fail(e.pos, "engine." + e.text + " used as a value: functions are not values in Kiln's script subset");
      return field(e);
    }
    case ExprKind::kCall: return call(e);
    case ExprKind::kIndex: return index(e);
    case ExprKind::kTable: {
      if (!e.keys.empty()) return record_literal(e);
      const int elem = solver_.fresh();
      for (const auto& item : e.items) {
        auto tv = value(*item);
        if (!tv) return tv;
        const std::string before = solver_.describe(elem);  // unify links what it compares, failing or not
        if (!solver_.unify(elem, *tv))
          return fail(item->pos, "array elements must have one type: " + solver_.describe(*tv) + " after " + before);
      }
      return record(e, solver_.array_of(elem));
    }
    case ExprKind::kUnary: {
      auto a = e.unop == UnOp::kNot ? condition(*e.a) : value(*e.a);
      if (!a) return a;
      if (e.unop == UnOp::kNot) return record(e, solver_.fresh(K::kBool));
      if (e.unop == UnOp::kLen) {
        const K k = solver_.kind(*a);
        if (k != K::kUnknown && k != K::kArray && k != K::kStr)
          return fail(e.pos, "'#' needs an array or a string, not " + solver_.describe(*a));
        // Still unknown here: decided when the script is checked, an array unless it is a string.
        defaults_.push_back([this, tv = *a] {
          if (solver_.kind(tv) == K::kUnknown) solver_.unify(tv, solver_.array_of(solver_.fresh()));
        });
        deferred_.push_back({[this, tv = *a, pos = e.pos]() -> Status {
          const K now = solver_.kind(tv);
          if (now != K::kArray && now != K::kStr)
            return fail(pos, "'#' needs an array or a string, not " + solver_.describe(tv));
          return {};
        }});
        return record(e, solver_.fresh(K::kNum));
      }
      if (!solver_.unify(*a, solver_.fresh(K::kNum)))
        return fail(e.pos, "unary '-' needs a number, not " + solver_.describe(*a));
      return record(e, solver_.fresh(K::kNum));
    }
    case ExprKind::kBinary: return binary(e);
  }
  return fail(e.pos, "unsupported expression");
}

Result<int> Checker::record_literal(const Expr& e) {
  if (e.keys.size() > jit::kMaxRecordFields)
    return fail(e.pos, "a record of " + std::to_string(e.keys.size()) + " fields (at most " +
                           std::to_string(jit::kMaxRecordFields) + ")");
  TypeSolver::Fields fields;
  for (std::size_t i = 0; i < e.items.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j)
      if (e.keys[j] == e.keys[i])
        return fail(e.key_pos[i], "field '" + e.keys[i] + "' is given twice (first at " + at(e.key_pos[j]) + ")");
    auto tv = value(*e.items[i]);
    if (!tv) return tv;
    fields.emplace_back(e.keys[i], *tv);
  }
  const int rec = solver_.record_of(fields);
  record_literals_.push_back({&e, rec});
  return record(e, rec);
}

Result<int> Checker::field(const Expr& e) {
  auto obj = value(*e.a);
  if (!obj) return obj;
  const int result = solver_.fresh();
  pending_fields_.push_back({&e, *obj, result, false});
  KILN_TRY(resolve_field(pending_fields_.back(), false));
  return record(e, result);
}

Status Checker::resolve_field(PendingField& p, bool final) {
  if (p.done) return {};
  const K k = solver_.kind(p.object);
  if (k == K::kUnknown) {
    if (!final) return {};
    return fail(p.e->pos, "the type of this value is never fixed by the script, so its field '" + p.e->text +
                              "' cannot be reached (pass it a record)");
  }
  if (k != K::kRecord) return fail(p.e->pos, "'." + p.e->text + "' needs a record, not " + solver_.describe(p.object));
  const int index = solver_.field_index(p.object, p.e->text);
  if (index < 0) return fail(p.e->pos, solver_.describe(p.object) + " has no field '" + p.e->text + "'");
  const int field_tv = solver_.fields(p.object)[static_cast<std::size_t>(index)].second;
  const std::string before = solver_.describe(field_tv);
  if (!solver_.unify(p.result, field_tv))
    return fail(p.e->pos, "field '" + p.e->text + "' is " + before + ", not " + solver_.describe(p.result));
  p.done = true;
  return {};
}

Status Checker::resolve_fields(bool final) {
  for (bool progress = true; progress;) {
    progress = false;
    for (auto& p : pending_fields_) {
      if (p.done) continue;
      KILN_TRY(resolve_field(p, false));
      progress = progress || p.done;
    }
  }
  if (final)
    for (auto& p : pending_fields_) KILN_TRY(resolve_field(p, true));
  return {};
}

Result<int> Checker::function_value(const Expr& e, int fn) {
  out_.function_refs[&e] = fn;
  return record(e, solver_.function_of(states_[fn].param_tvs, states_[fn].result_tv));
}

Result<int> Checker::index(const Expr& e) {
  auto arr = value(*e.a);
  if (!arr) return arr;
  const int elem = solver_.fresh();
  if (!solver_.unify(*arr, solver_.array_of(elem)))
    return fail(e.pos, "indexing needs an array, not " + solver_.describe(*arr));
  auto i = value(*e.b);
  if (!i) return i;
  if (!solver_.unify(*i, solver_.fresh(K::kNum)))
    return fail(e.b->pos, "an array index must be a number, not " + solver_.describe(*i));
  return record(e, elem);
}

Result<int> Checker::binary(const Expr& e) {
  const BinOp op = e.binop;
  if (op == BinOp::kOr && e.a->kind == ExprKind::kBinary && e.a->binop == BinOp::kAnd) {
    // c and x or y: the conditional idiom.
    const Expr& conj = *e.a;
    auto c = condition(*conj.a);
    if (!c) return c;
    auto x = value(*conj.b);
    if (!x) return x;
    auto y = value(*e.b);
    if (!y) return y;
    if (!solver_.unify(*x, *y))
      return fail(e.pos, "'c and x or y' needs x and y of one type, not " + solver_.describe(*x) + " and " +
                             solver_.describe(*y));
    deferred_.push_back({[this, c = *c, x = *x, pos = e.pos]() -> Status {
      const K k = solver_.kind(x);
      if (k == K::kNum || k == K::kStr || k == K::kArray || k == K::kRecord || k == K::kFunc || k == K::kUnknown)
        return {};
      if (solver_.unify(c, x)) return {};  // all booleans: plain and/or
      return fail(pos, "'c and x or y' with a boolean x needs a boolean c");
    }});
    record(conj, *x);
    return record(e, *x);
  }
  auto a = value(*e.a);
  if (!a) return a;
  auto b = value(*e.b);
  if (!b) return b;
  const char* spelling[] = {"+", "-", "*", "/", "%", "^", "==", "~=", "<", "<=", ">", ">=", "and", "or", ".."};
  const std::string opname = spelling[static_cast<int>(op)];
  switch (op) {
    case BinOp::kAdd:
    case BinOp::kSub:
    case BinOp::kMul:
    case BinOp::kDiv:
    case BinOp::kMod:
    case BinOp::kPow: {
      for (int tv : {*a, *b})
        if (!solver_.unify(tv, solver_.fresh(K::kNum)))
          return fail(e.pos, "'" + opname + "' needs numbers, not " + solver_.describe(tv));
      return record(e, solver_.fresh(K::kNum));
    }
    case BinOp::kLt:
    case BinOp::kLe:
    case BinOp::kGt:
    case BinOp::kGe: {  // two numbers or two strings; numbers unless the script says otherwise
      if (!solver_.unify(*a, *b))
        return fail(e.pos, "'" + opname + "' compares " + solver_.describe(*a) + " with " + solver_.describe(*b));
      auto comparable = [this, tv = *a, opname, pos = e.pos]() -> Status {
        const K k = solver_.kind(tv);
        if (k != K::kNum && k != K::kStr && k != K::kUnknown)
          return fail(pos, "'" + opname + "' needs numbers or strings, not " + solver_.describe(tv));
        return {};
      };
      KILN_TRY(comparable());
      defaults_.push_back([this, tv = *a] {
        if (solver_.kind(tv) == K::kUnknown) solver_.unify(tv, solver_.fresh(K::kNum));
      });
      deferred_.push_back(comparable);
      return record(e, solver_.fresh(K::kBool));
    }
    case BinOp::kConcat:
      for (const auto& [tv, side] : {std::pair{*a, e.a.get()}, std::pair{*b, e.b.get()}}) {
        auto joinable = [this, tv = tv, pos = side->pos]() -> Status {
          const K k = solver_.kind(tv);
          if (k == K::kUnknown)
            return fail(pos, "the type of this value is never fixed by the script, so it cannot be joined with '..'");
          if (k != K::kNum && k != K::kStr)
            return fail(pos, "'..' joins strings and numbers, not " + solver_.describe(tv));
          return {};
        };
        if (solver_.kind(tv) != K::kUnknown) KILN_TRY(joinable());
        deferred_.push_back(joinable);
      }
      return record(e, solver_.fresh(K::kStr));
    case BinOp::kEq:
    case BinOp::kNe:
      deferred_.push_back({[this, tv = *a, pos = e.pos]() -> Status {
        if (solver_.kind(tv) == K::kFunc)
          return fail(pos,
                      "comparing functions is outside Kiln's script subset (Lua compares closures, which it "
                      "creates anew)");
        return {};
      }});
      if (!solver_.unify(*a, *b))
        return fail(e.pos, "'" + opname + "' compares " + solver_.describe(*a) + " with " + solver_.describe(*b) +
                               ": values of different types are never equal");
      return record(e, solver_.fresh(K::kBool));
    case BinOp::kAnd:
    case BinOp::kOr:
      require_known(*a, e.a->pos, "an operand of 'and'/'or'");
      if (!solver_.unify(*a, *b))
        return fail(e.pos, "'" + opname + "' needs operands of one type, not " + solver_.describe(*a) + " and " +
                               solver_.describe(*b));
      return record(e, *a);
  }
  return fail(e.pos, "unsupported operator");
}

}  // namespace kiln::lang::detail
