#pragma once
// The interpreter's values: the ABI's Value, and arrays whose element storage has the ABI's layout,
// so compiled code reads and writes elements without a call.

#include <cstdlib>
#include <cstring>
#include <new>

#include "kiln/jit/jit_abi.h"

namespace kiln::jit {

using Value = abi::Value;

// A growable run of Values laid out as abi::ArrayData.
struct Array : abi::ArrayData {
  Array() : abi::ArrayData{nullptr, 0, 0} {}
  ~Array() { std::free(data); }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;

  std::size_t count() const { return size; }
  Value& operator[](std::size_t i) { return data[i]; }
  const Value& operator[](std::size_t i) const { return data[i]; }
  const Value* begin() const { return data; }
  const Value* end() const { return data + size; }
  void push_back(Value v) {
    if (size == capacity) {
      const std::size_t grown = capacity ? capacity * 2 : 4;
      auto* bigger = static_cast<Value*>(std::realloc(data, grown * sizeof(Value)));
      if (!bigger) throw std::bad_alloc();
      data = bigger;
      capacity = grown;
    }
    data[size++] = v;
  }
};

}  // namespace kiln::jit
