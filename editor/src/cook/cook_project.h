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
#include "kiln/textures/texture_settings.h"
#include "kiln/materials/variant_rules.h"
#include "kiln/runtime/material_record.h"
#include "kiln/shadercache/shader_library.h"

namespace kiln::cook {

struct MaterialInput {
  materials::Material source;  // file relative to the root
  // What the shaders pack stores: one pass per pass of its shader, naming its variant. The cook
  // lays out the parameter blocks and texture bindings from the built variants' reflection.
  runtime::MaterialRecord record;
};

struct ScriptInput {
  std::string file;  // relative to the root
  jit::Program program;
};

struct Project {
  std::filesystem::path root;
  std::vector<MaterialInput> materials;
  std::vector<materials::PlannedVariant> variants;  // sorted by name: deterministic order
  std::vector<ScriptInput> scripts;                 // sorted by file
  std::vector<std::string> textures;                // every texture a material names, sorted, relative to the root
  std::vector<textures::TextureSettings> texture_settings;  // of each texture, in the same order
  std::vector<std::string> errors;                          // every problem found, in a stable order
  std::size_t used = 0, declared = 0, stripped = 0;  // variants by why they are built, and declared ones left out
};

// Reads and validates the whole project; `library` answers for the shaders (their declarations).
Project load_project(const std::filesystem::path& root, shadercache::ShaderLibrary& library);

}  // namespace kiln::cook
