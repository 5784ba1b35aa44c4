#pragma once
// One GLSL or HLSL stage to SPIR-V with glslang, in process: the output is what
// `glslangValidator -V` (for HLSL `-D -V -S <stage> -e <entry>`) writes at the same target. glslang's process state is initialised once;
// after that any number of threads may compile at the same time.
//
// Diagnostics are rewritten to `path:line: error: message` (or `warning:`) naming the file the user
// edits, an include's path included, so editors and terminals can jump to them.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/shader_stage.h"
#include "kiln/runtime/shader_target.h"

namespace kiln::shadercache {

using Stage = runtime::ShaderStage;  // the stage table: kiln/runtime/shader_stage.h
using runtime::parse_target_env;
using runtime::SourceLanguage;
using runtime::stage_from_path;         // from the file extension: .vert .frag .mesh .rgen ...
using runtime::stage_name;              // "vert", "frag", ...
using runtime::stage_source_from_path;  // stage and language: .frag, .frag.hlsl ...
using runtime::target_env_name;
using runtime::TargetEnv;

struct GlslInput {
  std::filesystem::path file;  // as the user names it; used in diagnostics
  std::string source;
  Stage stage = Stage::kFragment;
  SourceLanguage language = SourceLanguage::kGlsl;
  // HLSL: the function the stage starts at (empty: "main"). A GLSL stage always starts at main.
  std::string entry;
  std::vector<std::string> defines;  // "NAME" becomes `#define NAME 1`; "NAME=VALUE" `#define NAME VALUE`
  std::vector<std::filesystem::path> include_dirs;
  // Where includes may lead (from kiln::canonical_roots): an include resolving elsewhere, through
  // "..", an absolute name or a symbolic link, is an error at its line. Empty: anywhere.
  std::vector<std::filesystem::path> include_roots;
  TargetEnv target = TargetEnv::kVulkan1_0;
  // When set, includes are served from these bytes (absolute normalised path -> text) rather than
  // read again; an include found only on disk is read and reported in read_outside_snapshot.
  const std::map<std::filesystem::path, std::string>* snapshot = nullptr;
};

struct GlslOutput {
  std::vector<std::uint32_t> spirv;
  std::vector<std::filesystem::path> includes;  // every file #included, in first-seen order
  std::string warnings;                         // rewritten like errors, one per line
  bool read_outside_snapshot = false;
};

// Compiles `input`. On failure the error lists every diagnostic, one per line.
Result<GlslOutput> compile_glsl(const GlslInput& input);

// "glslang 12.0.0": part of every persistent cache namespace.
std::string glslang_version();

}  // namespace kiln::shadercache
