#pragma once
// Turns the relocatable object LLVM emitted for one page into a blob that runs where it is copied:
// allocatable sections (text, constant pools, jump tables) back to back, PC-relative relocations
// between them resolved; calls to symbols outside the object through stubs that bake the address
// (then the blob is not cacheable).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::jitc {

struct LinkedBlob {
  std::vector<std::uint8_t> code;
  std::uint32_t function_offset = 0;
  std::uint32_t alignment = 16;
  bool cacheable = true;
  std::string not_cacheable_reason;
};

Result<LinkedBlob> link_object(std::string_view object, std::string_view function_name);

}  // namespace kiln::jitc
