#pragma once
// Random, well-typed programs in Kiln's Lua subset, for differential testing against luajit and
// lua5.1. Seeded and reproducible: the same seed writes the same program. Programs terminate
// (loops are bounded by counters, functions only call functions defined before them).

#include <cstdint>
#include <string>

namespace kiln::test {

std::string generate_program(std::uint64_t seed);

}  // namespace kiln::test
