#include "cook_project.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kiln/jit/script.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

std::vector<std::string> files_under(const fs::path& root, const std::string& dir, const std::string& extension) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root / dir, ec))
    if (e.is_regular_file() && (extension.empty() || e.path().extension() == extension))
      out.push_back(fs::relative(e.path(), root).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

Project load_project(const fs::path& root, shadercache::ShaderLibrary& library) {
  Project project;
  project.root = root;
  // What people see in messages: the path as they named the project, then the file in it.
  auto shown = [&](const std::string& rel) { return (root / rel).lexically_normal().string(); };

  std::map<std::string, VariantRequest> variants;  // by "shader|pass|keywords": sorted, deduplicated
  std::map<std::string, bool> textures;
  const auto material_files = files_under(root, "materials", ".json");
  if (material_files.empty()) project.errors.push_back(shown("materials") + ": no materials (*.json)");
  for (const std::string& rel : material_files) {
    auto text = read_text(root / rel);
    if (!text) {
      project.errors.push_back(shown(rel) + ": cannot read");
      continue;
    }
    auto material = materials::parse_material(shown(rel), *text);
    if (!material) {
      project.errors.push_back(material.error().message);
      continue;
    }
    auto program = library.program(material->shader);
    if (!program) {
      project.errors.push_back(shown(rel) + ": /shader: " + program.error().message);
      continue;
    }
    if (auto legal = materials::check_material_keywords(*material, (*program)->declaration); !legal) {
      project.errors.push_back(legal.error().message);
      continue;
    }
    for (const auto& [slot, texture] : material->textures) {
      std::error_code ec;
      if (!fs::is_regular_file(root / texture, ec))
        project.errors.push_back(shown(rel) + ": /textures/" + slot + ": no such file " + shown(texture));
      else
        textures[fs::path(texture).lexically_normal().generic_string()] = true;
    }
    // The variants the material uses: one per pass its shader declares (a pass the shader does not
    // have is never built); then the keyword sets it asks to ship.
    for (const std::string& pass : (*program)->declaration.passes) {
      auto key = materials::VariantKey::create(material->shader, pass, material->keywords, 0);
      auto& request = variants[key.shader + "|" + key.pass + "|" + key.keywords];
      request.key = key;
      request.used = true;
      request.materials.push_back(rel);
    }
    for (const auto& ship : material->ship)
      for (const std::string& pass : (*program)->declaration.passes) {
        auto key = materials::VariantKey::create(material->shader, pass, ship, 0);
        variants[key.shader + "|" + key.pass + "|" + key.keywords].key = key;
      }
    material->file = rel;
    project.materials.push_back(std::move(*material));
  }
  // Keyword sets shaders ask to ship (`#pragma kiln ship`), for every shader of the project.
  std::map<std::string, bool> shader_ids;
  for (const std::string& rel : files_under(root, "shaders", "")) {
    const fs::path p(rel);
    static const std::set<std::string> stages = {".vert", ".tesc", ".tese", ".geom", ".frag", ".comp"};
    if (p.parent_path() == "shaders" && stages.count(p.extension().string()))
      shader_ids[(p.parent_path() / p.stem()).generic_string()] = true;
  }
  for (const auto& [id, unused] : shader_ids) {
    auto program = library.program(id);
    if (!program) {
      project.errors.push_back(program.error().message);
      continue;
    }
    const auto& decl = (*program)->declaration;
    for (const auto& ship : decl.ship) {
      bool legal = true;
      for (const auto& k : ship)
        if (!decl.keywords.count(k)) {
          project.errors.push_back(shown(id) + ": #pragma kiln ship: unknown keyword '" + k + "'");
          legal = false;
        }
      if (!legal) continue;
      for (const std::string& pass : decl.passes) {
        auto key = materials::VariantKey::create(id, pass, std::vector<std::string>(ship.begin(), ship.end()), 0);
        variants[key.shader + "|" + key.pass + "|" + key.keywords].key = key;
      }
    }
  }
  // Stripping: a declared variant whose keywords include a combination its shader declares invalid
  // is left out (a used one is already an error of its material).
  for (auto& [name, request] : variants) {
    auto program = library.program(request.key.shader);
    bool invalid = false;
    if (program && !request.used) {
      const auto keywords = request.key.keyword_list();
      const std::set<std::string> set(keywords.begin(), keywords.end());
      for (const auto& bad : (*program)->declaration.invalid)
        invalid = invalid || std::includes(set.begin(), set.end(), bad.begin(), bad.end());
    }
    if (invalid) {
      ++project.stripped;
      continue;
    }
    (request.used ? project.used : project.declared)++;
    project.variants.push_back(std::move(request));
  }
  for (const auto& [texture, unused] : textures) project.textures.push_back(texture);

  for (const std::string& rel : files_under(root, "scripts", ".lua")) {
    auto text = read_text(root / rel);
    if (!text) {
      project.errors.push_back(shown(rel) + ": cannot read");
      continue;
    }
    auto program = jit::compile_script(shown(rel), *text);
    if (!program) {
      project.errors.push_back(program.error().message);
      continue;
    }
    program->file = rel;  // what the cooked bytecode names
    project.scripts.push_back({rel, std::move(*program)});
  }
  return project;
}

}  // namespace kiln::cook
