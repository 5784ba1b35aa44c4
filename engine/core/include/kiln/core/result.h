#pragma once
// Result<T>: the value or the error of an operation that can fail for an expected reason (bad input,
// missing file, compile error). Module boundaries return these; exceptions never cross them.

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace kiln {

// An expected failure. `message` is for people: it names the file, the place and the problem.
struct Error {
  std::string message;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T v) : state_(std::in_place_index<0>, std::move(v)) {}
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

// The result of an operation that has no value to return.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace kiln

// Returns the error of `expr` (a Result or a Status) from the enclosing function, which returns a
// Result or a Status; on success the value is dropped. `if (auto s = f(); !s) return s.error();`
// in one word.
#define KILN_TRY(expr)                                                                        \
  do {                                                                                        \
    if (auto&& kiln_try_result_ = (expr); !kiln_try_result_) return kiln_try_result_.error(); \
  } while (false)
