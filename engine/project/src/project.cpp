#include "kiln/project/project.h"

#include <sys/stat.h>

#include <set>

#include "kiln/core/project_paths.h"
#include "kiln/project/project_reader.h"

namespace kiln::project {
namespace fs = std::filesystem;
namespace {

// Why `dir` under the root is there but is no directory to list (a FIFO, a file, a link that leads
// nowhere or to a device); nothing when it is a directory or absent.
std::optional<std::string> not_a_directory(const fs::path& dir) {
  struct stat own {};
  if (::lstat(dir.c_str(), &own) != 0) return std::nullopt;  // absent: the project has none
  struct stat target {};
  if (::stat(dir.c_str(), &target) == 0 && S_ISDIR(target.st_mode)) return std::nullopt;
  if (S_ISLNK(own.st_mode)) return std::string("not a directory (a symbolic link to something else or nothing)");
  return std::string("not a directory (") +
         (S_ISFIFO(own.st_mode)  ? "a FIFO"
          : S_ISREG(own.st_mode) ? "a regular file"
                                 : "a special file") +
         ")";
}

std::string joined(const std::set<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// Every shader of the project (a stage file directly under shaders/), its ship and invalid pragmas
// naming only keywords it declares: added to `plan`, or its problems to `errors`. Shaders whose
// loading a material already reported are not reported again.
void plan_shaders(const ProjectReader& reader, const std::set<std::string>& reported, materials::VariantPlan& plan,
                  std::vector<std::string>& errors) {
  std::set<std::string> ids;
  for (const std::string& rel : list_project_files(reader.root(), "shaders", "")) {
    const fs::path p(rel);
    static const std::set<std::string> stages = {".vert", ".tesc", ".tese", ".geom", ".frag", ".comp"};
    if (p.parent_path() == "shaders" && stages.count(p.extension().string()))
      ids.insert((p.parent_path() / p.stem()).generic_string());
  }
  for (const auto& id : ids) {
    auto program = reader.shaders().program(id);
    if (!program) {
      if (!reported.count(program.error().message)) errors.push_back(program.error().message);
      continue;
    }
    const auto& decl = (*program)->declaration;
    bool legal = true;
    for (const auto& [pragma, sets] : {std::pair{"ship", &decl.ship}, std::pair{"invalid", &decl.invalid}})
      for (const auto& set : *sets)
        for (const auto& k : set)
          if (!decl.keywords.count(k)) {
            errors.push_back(reader.shown(id) + ": #pragma kiln " + pragma + " " + joined(set) + ": unknown keyword '" +
                             k + "' (legal keywords: " + joined(decl.keywords) + ")");
            legal = false;
          }
    if (legal) plan.add_shader(id, decl);
  }
}

}  // namespace

Project load_project(const fs::path& root, materials::ShaderCatalog& shaders) {
  Project project;
  project.root = root;
  ProjectReader reader(root, shaders);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    project.errors.push_back(root.string() + ": no such project directory");
    return project;
  }
  // A source directory that is something else would otherwise read as empty, its files skipped.
  std::set<std::string> unlisted;
  for (const char* dir : {"materials", "shaders", "scripts", "textures"})
    if (auto why = not_a_directory(root / dir)) {
      project.errors.push_back(reader.shown(dir) + ": " + *why);
      unlisted.insert(dir);
    }
  const auto material_files = list_project_files(root, "materials", ".json");
  if (material_files.empty() && !unlisted.count("materials"))
    project.errors.push_back(reader.shown("materials") + ": no materials (*.json)");
  materials::VariantPlan plan;
  std::vector<TextureUse> uses;
  for (const std::string& rel : material_files) {
    auto material = reader.read_material(rel, project.errors, &uses);
    if (!material) continue;
    const auto program = shaders.program(material->record.shader);  // loaded: read_material asked
    plan.add_material(rel, material->record.shader, (*program)->declaration, material->source.keywords,
                      material->source.ship);
    project.materials.push_back(std::move(*material));
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
