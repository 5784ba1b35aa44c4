#pragma once
// What `kiln cook` reads from a project: its materials, shaders, scripts and textures, validated
// all together so that every error is reported at once (`file:line` or `file: /json/pointer`).
//
// Layout under the project root: materials/*.json, shaders/*, scripts/*.lua, textures/* (the
// sources materials name). Paths in reports are relative to the root: no absolute path reaches a
// cooked output.

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/jit/bytecode.h"
#include "kiln/materials/material.h"
#include "kiln/materials/variant_key.h"
#include "kiln/shadercache/shader_library.h"

namespace kiln::cook {

struct VariantRequest {
  materials::VariantKey key;     // revision 0: a cook sees each source once
  std::vector<std::string> materials;  // the materials that use it, for messages and reports
  bool used = false;                   // a material uses it (else only declared: "ship")
};

struct ScriptInput {
  std::string file;  // relative to the root
  jit::Program program;
};

struct Project {
  std::filesystem::path root;
  std::vector<materials::Material> materials;  // file relative to the root
  std::vector<VariantRequest> variants;        // sorted by key: deterministic order
  std::vector<ScriptInput> scripts;            // sorted by file
  std::vector<std::string> textures;           // every texture a material names, sorted, relative to the root
  std::vector<std::string> errors;             // every problem found, in a stable order
  std::size_t used = 0, declared = 0, stripped = 0;  // variants by why they are built, and declared ones left out
};

// Reads and validates the whole project; `library` answers for the shaders (their declarations).
Project load_project(const std::filesystem::path& root, shadercache::ShaderLibrary& library);

}  // namespace kiln::cook
