#include "cook_project.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "kiln/jit/script.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

std::vector<std::string> files_under(const fs::path& root, const std::string& dir, const std::string& extension) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root / dir, ec))
    if (e.is_regular_file() && e.path().extension() == extension)
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
    // have is never built).
    for (const std::string& pass : (*program)->declaration.passes) {
      auto key = materials::VariantKey::create(material->shader, pass, material->keywords, 0);
      auto& request = variants[key.shader + "|" + key.pass + "|" + key.keywords];
      request.key = key;
      request.materials.push_back(rel);
    }
    material->file = rel;
    project.materials.push_back(std::move(*material));
  }
  for (auto& [name, request] : variants) project.variants.push_back(std::move(request));
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
