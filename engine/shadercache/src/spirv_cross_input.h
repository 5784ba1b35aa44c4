#pragma once
// The SPIR-V handed to SPIRV-Cross, made safe for its parser.
//
// SPIRV-Cross's parser compares every named struct type with the earlier ones of the same name,
// member by member and through pointers, to find aliases (one block laid out std140 and std430).
// A struct that reaches itself through device-address pointers (a linked list of
// `buffer_reference` nodes, valid GLSL that glslang compiles) sends that comparison round the
// cycle until the stack overflows. The names of such structs are taken out of the module before
// SPIRV-Cross parses it and given back to the parsed compiler, so the comparison never starts for
// them and every name still reaches the reflection and the translated source.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace spirv_cross {
class Compiler;
}

namespace kiln::shadercache {

struct CrossInput {
  std::vector<std::uint32_t> words;                               // what SPIRV-Cross parses
  std::vector<std::pair<std::uint32_t, std::string>> held_names;  // struct id -> its OpName, taken out
};

// `spirv` with the names of struct types that reach a type cycle held back. Malformed SPIR-V is
// passed on as it is (SPIRV-Cross reports what is wrong with it).
CrossInput spirv_cross_input(std::span<const std::uint32_t> spirv);

// Gives the held names back to a compiler made from `input.words`.
void restore_held_names(spirv_cross::Compiler& compiler, const CrossInput& input);

// What SPIRV-Cross said when it gave up on `spirv`, with the SPIR-V extensions the module uses
// (what it most likely did not know: "... (the module uses SPV_NV_cooperative_matrix)").
std::string spirv_cross_failure(std::span<const std::uint32_t> spirv, const std::string& what);

}  // namespace kiln::shadercache
