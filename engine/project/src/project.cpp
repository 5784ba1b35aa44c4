#include "kiln/project/project.h"

#include <algorithm>
#include <set>

#include "kiln/core/project_paths.h"
#include "kiln/project/project_reader.h"

namespace kiln::project {
namespace fs = std::filesystem;
namespace {

// Every shader of the project planned, unless its pragmas name unknown keywords (then said);
// shaders whose loading a material already reported are not reported again.
void plan_shaders(const ProjectReader& reader, const std::set<std::string>& reported, materials::VariantPlan& plan,
                  std::vector<std::string>& errors) {
  for (const auto& id : project_shaders(reader)) {
    auto program = reader.shaders().program(id);
    if (!program) {
      if (!reported.count(program.error().message)) errors.push_back(program.error().message);
      continue;
    }
    auto problems = check_shader_pragmas(reader, **program);
    if (problems.empty()) plan.add_shader(id, (*program)->declaration);
    errors.insert(errors.end(), problems.begin(), problems.end());
  }
}

}  // namespace

Project load_project(const fs::path& root, const ProjectSettings& settings, materials::ShaderCatalog& shaders,
                     core::WorkerPool* pool) {
  Project project;
  project.root = root;
  project.settings = settings;
  ProjectReader reader(root, shaders);
  reader.remember_resolved_paths();  // the project is read once, start to end
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    project.errors.push_back(root.string() + ": no such project directory");
    return project;
  }
  const auto unlisted = check_source_directories(reader);
  project.errors.insert(project.errors.end(), unlisted.begin(), unlisted.end());
  const auto material_files = list_project_files(root, "materials", ".json");
  const bool materials_unlisted = std::any_of(unlisted.begin(), unlisted.end(), [&](const std::string& e) {
    return e.rfind(reader.shown("materials") + ":", 0) == 0;
  });
  if (material_files.empty() && !materials_unlisted)
    project.errors.push_back(reader.shown("materials") + ": no materials (*.json)");
  materials::VariantPlan plan;
  std::vector<TextureUse> uses;
  project.materials.reserve(material_files.size());
  // The materials' files are read and parsed on the pool, a batch at a time (what a batch holds is
  // bounded); the checks that use what the reader remembers follow in order on this thread, so the
  // errors come in the order of the files.
  constexpr std::size_t kBatch = 512;
  std::vector<std::optional<std::string>> outside;
  std::vector<std::optional<Result<materials::Material>>> read;
  for (std::size_t first = 0; first < material_files.size(); first += kBatch) {
    const std::size_t n = std::min(kBatch, material_files.size() - first);
    outside.assign(n, std::nullopt);
    read.assign(n, std::nullopt);
    for (std::size_t i = 0; i < n; ++i) outside[i] = reader.outside(material_files[first + i]);
    const auto read_one = [&](std::size_t i) {
      if (!outside[i]) read[i] = reader.read_material_file(material_files[first + i]);
    };
    if (pool)
      pool->parallel_for(n, read_one);
    else
      for (std::size_t i = 0; i < n; ++i) read_one(i);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string& rel = material_files[first + i];
      if (outside[i]) {
        project.errors.push_back(reader.shown(rel) + ": " + *outside[i]);
        continue;
      }
      auto material = reader.check_material(rel, std::move(*read[i]), project.errors, &uses);
      if (!material) continue;
      const auto program = shaders.program(material->record.shader);  // loaded: check_material asked
      plan.add_material(rel, material->record.shader, (*program)->declaration, material->source.keywords,
                        material->source.ship);
      project.materials.push_back(std::move(*material));
    }
  }
  // Keyword sets shaders ask to ship (`#pragma kiln ship`), for every shader of the project.
  const std::set<std::string> reported(project.errors.begin(), project.errors.end());
  plan_shaders(reader, reported, plan, project.errors);
  project.variants = plan.variants();
  project.used = plan.used();
  project.declared = plan.declared();
  project.stripped = plan.stripped();
  project.textures = check_texture_uses(reader, uses, project.errors);

  // Scripts may call the engine's functions for the materials' parameters.
  const auto host = host_signatures(project.materials);
  for (const std::string& rel : list_project_files(root, "scripts", ".lua")) {
    auto script = reader.read_script(rel, host);
    if (!script) {
      project.errors.push_back(script.error().message);
      continue;
    }
    project.scripts.push_back(std::move(*script));
  }
  return project;
}

}  // namespace kiln::project
