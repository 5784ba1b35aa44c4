#pragma once
// The bytecode the script compiler makes for one function of a script, for tests that look at the
// generated code itself.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/lang/script.h"

namespace kiln::test {

// The words of the script's function `name` (the test fails when there is none).
inline std::vector<std::uint32_t> function_code(const std::string& source, const std::string& name) {
  auto program = lang::compile_script("test.lua", source);
  REQUIRE_MESSAGE(program, program.error().message);
  for (std::size_t f = 0; f < program->functions.size(); ++f)
    if (program->functions[f].name == name) return {program->code(f), program->code(f) + program->functions[f].words};
  FAIL("no function " << name);
  return {};
}

}  // namespace kiln::test
