#pragma once
// A project as Kiln reads it: its materials, the shaders they and `#pragma kiln ship` ask for,
// its scripts with the engine functions its materials give them, and the textures the materials
// name with their settings. Validated all together, every error reported at once and spelt one way
// (`file:line: ...` or `file: /json/pointer: ...`, the closest legal name where there is one), so
// that the cook and the editor accept and refuse the same project with the same words. kiln.json
// (project_settings.h) says what the shaders are compiled with and for.
//
// Layout under the root: materials/*.json, shaders/*, scripts/*.lua, textures/* (the sources
// materials name). Paths in records are relative to the root; messages name files as the caller
// named the root.
//
// Thread-safety: plain values; load_project reads the disk and asks the catalog from one thread
// (and reads materials' files on the pool it is given).

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/core/worker_pool.h"
#include "kiln/jit/bytecode.h"
#include "kiln/materials/material.h"
#include "kiln/materials/shader_declaration.h"
#include "kiln/materials/variant_rules.h"
#include "kiln/project/project_settings.h"
#include "kiln/runtime/material_record.h"
#include "kiln/textures/texture_settings.h"

namespace kiln::project {

struct MaterialInput {
  materials::Material source;  // file relative to the root
  // What the shaders pack stores: one pass per pass of its shader, naming its variant; the blocks
  // and texture bindings are laid out from the built variants' reflection (lay_out_material).
  runtime::MaterialRecord record;
};

struct ScriptInput {
  std::string file;  // relative to the root
  jit::Program program;
};

struct TextureInput {
  std::string file;  // relative to the root
  textures::TextureSettings settings;
};

struct Project {
  std::filesystem::path root;
  ProjectSettings settings;                          // kiln.json, as the catalog was made for
  std::vector<MaterialInput> materials;              // sorted by file
  std::vector<materials::PlannedVariant> variants;   // sorted by name: deterministic order
  std::vector<ScriptInput> scripts;                  // sorted by file
  std::vector<TextureInput> textures;                // every texture a material names, sorted by file
  std::vector<std::string> errors;                   // every problem found, in a stable order
  std::size_t used = 0, declared = 0, stripped = 0;  // variants by why they are built, and declared ones left out
};

// Reads and validates the whole project; `shaders` answers for its shaders' declarations, compiled
// with `settings` (load_project_settings: the catalog is made from them, so they come first).
// With a `pool`, the materials' files are read and parsed on it; the result is the same.
Project load_project(const std::filesystem::path& root, const ProjectSettings& settings,
                     materials::ShaderCatalog& shaders, core::WorkerPool* pool = nullptr);

}  // namespace kiln::project
