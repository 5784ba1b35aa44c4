#pragma once
// What a shader declares about its variants, with the shader itself, in its source:
//
//   #pragma kiln keywords FOG SKIN NORMALMAP ALPHA_TEST
//   #pragma kiln passes Forward Shadow Depth
//   #pragma kiln ship FOG            (built whether or not a material uses it)
//   #pragma kiln ship FOG SKIN always  (and shipped whatever the usage records say)
//   #pragma kiln entry PSMain        (an HLSL stage's entry point; main without it)
//
// A shader of several stage files (lit.vert + lit.frag) declares the union of its stages'
// pragmas. Without a passes pragma a shader has the single pass "Main". glslang ignores these
// pragmas; the compiler passes keywords as `#define KW 1` and the pass as `#define KILN_PASS_<PASS> 1`
// (upper case).
//
// Thread-safety: plain values and pure functions.

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::materials {

struct ShaderDeclaration {
  std::set<std::string> keywords;
  std::set<std::string> passes;
  bool declares_passes = false;  // false: the implicit single pass "Main", which defines nothing
  // `#pragma kiln ship A B`: a keyword set the cook builds whether or not a material uses it.
  std::vector<std::set<std::string>> ship;
  // `#pragma kiln invalid A B`: no variant containing all of these is ever built.
  std::vector<std::set<std::string>> invalid;
  std::vector<std::string> pass_order;  // `passes` in the order first declared (stage by stage)
  // `#pragma kiln ship A B always`: of `ship`, the sets shipped even when a cook's usage records
  // name none of their variants (a variant the game needs before any record could see it).
  std::vector<std::set<std::string>> ship_always;
  // `#pragma kiln entry NAME`: the function an HLSL stage starts at. One file's own: never merged.
  std::string entry;
};

// Reads the kiln pragmas of one source file. Errors name `file:line`.
Result<ShaderDeclaration> parse_shader_declaration(const std::string& file, std::string_view source);

// Merges the declarations of a shader's stages; a shader with no passes pragma gets "Main".
ShaderDeclaration merge_declarations(const std::vector<ShaderDeclaration>& stages);

// A keyword is a non-empty identifier-like token: no ';', '|' or whitespace (they would break the
// canonical key) — checked here, with a message naming the keyword.
Status check_keyword_syntax(std::string_view keyword);

// Checks a request against the shader's declaration: every keyword legal, the pass declared.
// An unknown keyword is an error naming it, the shader and the legal set — never dropped.
Status check_variant_request(const std::string& shader, const ShaderDeclaration& declaration, const std::string& pass,
                             const std::vector<std::string>& keywords);

// The define the pass becomes: "Shadow" -> "KILN_PASS_SHADOW".
std::string pass_define(std::string_view pass);

// A shader as a project names it: its id ("shaders/lit"), its stage files and what they declare.
struct ShaderProgram {
  std::string id;
  std::vector<std::string> stage_files;  // relative to the root, in stage order
  ShaderDeclaration declaration;
};

// Where a project's shaders are read from (the tools' shadercache::ShaderLibrary): a shader's
// declaration by id, and the directories a project's files may lead into (its root and include
// directories).
class ShaderCatalog {
 public:
  virtual ~ShaderCatalog() = default;
  // A shader by id or stage path; an error naming the file and line, or "no stage file".
  virtual Result<std::shared_ptr<const ShaderProgram>> program(const std::string& id) = 0;
  virtual const std::vector<std::filesystem::path>& roots() const = 0;
};

}  // namespace kiln::materials
