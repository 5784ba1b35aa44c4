#pragma once
// Cooked bytecode: a Program as bytes (for the scripts pack) and back. Little-endian, versioned,
// every length checked on reading: a truncated or damaged payload is an error naming `name`.
//
// Thread-safety: pure functions.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/jit/bytecode.h"

namespace kiln::jit {

std::vector<std::byte> serialize_program(const Program& program);
Result<Program> deserialize_program(std::span<const std::byte> bytes, const std::string& name);

}  // namespace kiln::jit
