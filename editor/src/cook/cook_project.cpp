#include "cook_project.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "kiln/core/input_limits.h"
#include "kiln/core/json_document.h"
#include "kiln/core/project_paths.h"
#include "kiln/lang/script.h"
#include "script_host.h"
#include "kiln/textures/texture_settings.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

std::vector<std::string> files_under(const fs::path& root, const std::string& dir, const std::string& extension) {
  return list_project_files(root, dir, extension);
}

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

}  // namespace

Project load_project(const fs::path& root, shadercache::ShaderLibrary& library) {
  Project project;
  project.root = root;
  // What people see in messages: the path as they named the project, then the file in it.
  auto shown = [&](const std::string& rel) { return (root / rel).lexically_normal().string(); };

  // Files may lead (through symbolic links) only into the project and its include directories.
  auto outside = [&](const std::string& rel) -> std::optional<std::string> {
    fs::path resolved;
    if (resolves_inside(root / rel, library.roots(), &resolved)) return std::nullopt;
    return "leads outside the project and its include directories (to " + resolved.string() + ")";
  };

  materials::VariantPlan plan;
  // texture -> its settings and the first use that asked for them; sidecars read once each
  std::map<std::string, std::pair<textures::TextureSettings, std::string>> texture_uses;
  std::map<std::string, std::optional<textures::TextureOptions>> sidecars;
  // A use's settings: the slot's default, the sidecar's, the entry's; nullopt after a broken sidecar.
  auto settings_of = [&](const std::string& texture, const std::string& slot,
                         const materials::Material& m) -> std::optional<textures::TextureSettings> {
    auto known = sidecars.find(texture);
    if (known == sidecars.end()) {
      auto read = textures::read_texture_sidecar(root / texture);
      if (!read) {
        project.errors.push_back(read.error().message);
        sidecars[texture] = std::nullopt;
        return std::nullopt;
      }
      known = sidecars.emplace(texture, *read).first;
    }
    auto entry = m.texture_options.find(slot);
    return textures::resolve_texture_settings(slot, known->second ? &*known->second : nullptr,
                                              entry == m.texture_options.end() ? nullptr : &entry->second);
  };
  std::map<std::string, std::string> failed_shaders;  // id -> why
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    project.errors.push_back(root.string() + ": no such project directory");
    return project;
  }
  // A source directory that is something else would otherwise read as empty, its files skipped.
  std::set<std::string> unlisted;
  for (const char* dir : {"materials", "shaders", "scripts", "textures"})
    if (auto why = not_a_directory(root / dir)) {
      project.errors.push_back(shown(dir) + ": " + *why);
      unlisted.insert(dir);
    }
  const auto material_files = files_under(root, "materials", ".json");
  if (material_files.empty() && !unlisted.count("materials"))
    project.errors.push_back(shown("materials") + ": no materials (*.json)");
  for (const std::string& rel : material_files) {
    if (auto why = outside(rel)) {
      project.errors.push_back(shown(rel) + ": " + *why);
      continue;
    }
    auto text = read_input_file(shown(rel), limits::kJsonFileBytes, "material");
    if (!text) {
      project.errors.push_back(text.error().message);
      continue;
    }
    auto material = materials::parse_material(shown(rel), *text);
    if (!material) {
      project.errors.push_back(material.error().message);
      continue;
    }
    auto program = library.program(material->shader);
    if (!program) {
      // A shader that exists but does not load is reported once, as itself; each material using
      // it says only that. A shader with no stage file at all is the material's mistake.
      auto [failed, first] = failed_shaders.try_emplace(material->shader, program.error().message);
      const bool missing = program.error().message.find(": no stage file") != std::string::npos;
      if (missing)
        project.errors.push_back(shown(rel) + ": /shader: " + program.error().message);
      else if (first)
        project.errors.push_back(program.error().message);
      if (!missing)
        project.errors.push_back(shown(rel) + ": /shader: " + material->shader +
                                 " does not load (its errors are listed)");
      continue;
    }
    const auto& declaration = (*program)->declaration;
    if (auto legal = materials::check_material_keywords(*material, declaration); !legal) {
      project.errors.push_back(legal.error().message);
      continue;
    }
    for (const auto& [slot, texture] : material->textures) {
      const std::string where = shown(rel) + ": /textures/" + json_pointer_token(slot) + ": ";
      if (!input_present(root / texture))
        project.errors.push_back(where + "no such file " + shown(texture));
      else if (auto why = outside(texture))
        project.errors.push_back(where + texture + " " + *why);
      else if (auto settings = settings_of(texture, slot, *material)) {
        const std::string use = shown(rel) + " /textures/" + json_pointer_token(slot);
        auto [it, first] = texture_uses.try_emplace(texture, *settings, use);
        if (!first && !(it->second.first == *settings))
          project.errors.push_back(shown(texture) + ": used as " + textures::describe_settings(it->second.first) +
                                   " by " + it->second.second + " and as " + textures::describe_settings(*settings) +
                                   " by " + use + ": give it one setting (in " +
                                   shown(textures::texture_sidecar_path(texture).string()) + ")");
      }
    }
    material->file = rel;
    plan.add_material(rel, (*program)->id, declaration, material->keywords, material->ship);
    MaterialInput input{*material, {}};
    input.record.file = rel;
    input.record.shader = (*program)->id;
    input.record.params = material->params;
    for (const auto& [slot, texture] : material->textures)
      input.record.textures[slot] = fs::path(texture).lexically_normal().generic_string();
    for (const std::string& pass : declaration.pass_order) {
      const auto key = materials::VariantKey::create((*program)->id, pass, material->keywords, 0);
      if (input.record.keywords.empty()) input.record.keywords = key.keyword_list();
      input.record.passes.push_back({pass, key.name(), {}, {}});
    }
    project.materials.push_back(std::move(input));
  }
  // Keyword sets shaders ask to ship (`#pragma kiln ship`), for every shader of the project; their
  // `ship` and `invalid` pragmas may name only keywords the shader declares.
  std::set<std::string> shader_ids;
  for (const std::string& rel : files_under(root, "shaders", "")) {
    const fs::path p(rel);
    static const std::set<std::string> stages = {".vert", ".tesc", ".tese", ".geom", ".frag", ".comp"};
    if (p.parent_path() == "shaders" && stages.count(p.extension().string()))
      shader_ids.insert((p.parent_path() / p.stem()).generic_string());
  }
  for (const auto& id : shader_ids) {
    auto program = library.program(id);
    if (!program) {
      if (!failed_shaders.count(id)) project.errors.push_back(program.error().message);
      continue;
    }
    const auto& decl = (*program)->declaration;
    bool legal = true;
    for (const auto& [pragma, sets] : {std::pair{"ship", &decl.ship}, std::pair{"invalid", &decl.invalid}})
      for (const auto& set : *sets)
        for (const auto& k : set)
          if (!decl.keywords.count(k)) {
            project.errors.push_back(shown(id) + ": #pragma kiln " + pragma + " " + joined(set) +
                                     ": unknown keyword '" + k + "' (legal keywords: " + joined(decl.keywords) + ")");
            legal = false;
          }
    if (legal) plan.add_shader(id, decl);
  }
  project.variants = plan.variants();
  project.used = plan.used();
  project.declared = plan.declared();
  project.stripped = plan.stripped();
  for (const auto& [file, use] : texture_uses) {
    project.textures.push_back(file);
    project.texture_settings.push_back(use.first);
  }

  // Scripts may call the engine's functions for the materials' parameters.
  std::vector<runtime::MaterialRecord> records;
  for (const auto& m : project.materials) records.push_back(m.record);
  const auto signatures = cli::host_signatures(runtime::parameter_functions(records));
  for (const std::string& rel : files_under(root, "scripts", ".lua")) {
    if (auto why = outside(rel)) {
      project.errors.push_back(shown(rel) + ": " + *why);
      continue;
    }
    auto text = read_input_file(shown(rel), limits::kScriptBytes, "script");
    if (!text) {
      project.errors.push_back(text.error().message);
      continue;
    }
    auto program = lang::compile_script(shown(rel), *text, signatures);
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
