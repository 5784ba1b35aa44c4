#include "kiln/project/project_reader.h"

#include <sys/stat.h>

#include <set>

#include "kiln/core/input_limits.h"
#include "kiln/core/json_document.h"
#include "kiln/core/project_paths.h"
#include "kiln/lang/script.h"
#include "kiln/runtime/shader_stage.h"

namespace kiln::project {
namespace fs = std::filesystem;

ProjectReader::ProjectReader(fs::path root, materials::ShaderCatalog& shaders)
    : root_(std::move(root)), normal_root_(root_.lexically_normal().string()), shaders_(shaders) {}

std::string ProjectReader::shown(const std::string& rel) const { return normal_join(normal_root_, rel); }

std::optional<std::string> ProjectReader::outside(const std::string& rel) const {
  if (!remember_paths_) {
    fs::path resolved;
    if (resolves_inside(root_ / rel, shaders_.roots(), &resolved)) return std::nullopt;
    return "leads outside the project and its include directories (to " + resolved.string() + ")";
  }
  if (auto known = outside_.find(rel); known != outside_.end()) return known->second;
  // A file that is no symbolic link is where its directory resolves to: the directory is resolved
  // once for all the files in it (a project of thousands of materials has a few directories).
  const fs::path file = normal_join(normal_root_, rel);
  struct stat st {};
  bool inside = false;
  if (::lstat(file.c_str(), &st) == 0 && !S_ISLNK(st.st_mode) && file.has_parent_path()) {
    const fs::path dir = file.parent_path();
    auto known_dir = inside_dirs_.find(dir);
    if (known_dir == inside_dirs_.end())
      known_dir = inside_dirs_.emplace(dir, resolves_inside(dir, shaders_.roots())).first;
    inside = known_dir->second;
  }
  fs::path resolved;
  std::optional<std::string> why;
  if (!inside && !resolves_inside(root_ / rel, shaders_.roots(), &resolved))
    why = "leads outside the project and its include directories (to " + resolved.string() + ")";
  outside_.emplace(rel, why);
  return why;
}

bool ProjectReader::present(const std::string& rel) const {
  if (!remember_paths_) return input_present(root_ / rel);
  // Many materials share a texture: in one pass over the project it is looked for once.
  auto known = present_.find(rel);
  if (known == present_.end()) known = present_.emplace(rel, input_present(root_ / rel)).first;
  return known->second;
}

// A use's settings: the slot's default, the sidecar's (none, or a broken one: said when first
// read), the entry's; nullopt when the sidecar is first found broken.
std::optional<textures::TextureSettings> ProjectReader::settings_of(const std::string& texture, const std::string& slot,
                                                                    const materials::Material& m,
                                                                    std::vector<std::string>& errors) {
  auto known = sidecars_.find(texture);
  if (known == sidecars_.end()) {
    auto read = textures::read_texture_sidecar(root_ / texture);
    if (!read) {
      errors.push_back(read.error().message);
      sidecars_[texture] = std::nullopt;
      return std::nullopt;
    }
    known = sidecars_.emplace(texture, *read).first;
  }
  auto entry = m.texture_options.find(slot);
  return textures::resolve_texture_settings(slot, known->second ? &*known->second : nullptr,
                                            entry == m.texture_options.end() ? nullptr : &entry->second);
}

Result<materials::Material> ProjectReader::read_material_file(const std::string& rel) const {
  const std::string file = shown(rel);
  auto text = read_input_file(file, limits::kJsonFileBytes, "material");
  if (!text) return text.error();
  return materials::parse_material(file, *text);
}

std::optional<MaterialInput> ProjectReader::read_material(const std::string& rel, std::vector<std::string>& errors,
                                                          std::vector<TextureUse>* uses) {
  if (auto why = outside(rel)) {
    errors.push_back(shown(rel) + ": " + *why);
    return std::nullopt;
  }
  return check_material(rel, read_material_file(rel), errors, uses);
}

std::optional<MaterialInput> ProjectReader::check_material(const std::string& rel, Result<materials::Material> material,
                                                           std::vector<std::string>& errors,
                                                           std::vector<TextureUse>* uses) {
  const std::string file = shown(rel);
  if (!material) {
    errors.push_back(material.error().message);
    return std::nullopt;
  }
  auto program = shaders_.program(material->shader);
  if (!program) {
    // A shader that exists but does not load is reported once, as itself; each material using it
    // says only that. A shader with no stage file at all is the material's mistake.
    auto [failed, first] = failed_shaders_.try_emplace(material->shader, program.error().message);
    const bool missing = program.error().message.find(": no stage file") != std::string::npos;
    if (missing)
      errors.push_back(file + ": /shader: " + program.error().message);
    else if (first)
      errors.push_back(program.error().message);
    if (!missing) errors.push_back(file + ": /shader: " + material->shader + " does not load (its errors are listed)");
    return std::nullopt;
  }
  const auto& declaration = (*program)->declaration;
  if (auto legal = materials::check_material_keywords(*material, declaration); !legal) {
    errors.push_back(legal.error().message);
    return std::nullopt;
  }
  for (const auto& entry : material->textures) {
    const std::string& slot = entry.first;  // a plain name: lambdas cannot name a binding in clang 14
    const std::string& texture = entry.second;
    const auto where = [&] { return file + ": /textures/" + json_pointer_token(slot) + ": "; };
    if (!present(texture))
      errors.push_back(where() + "no such file " + shown(texture));
    else if (auto why = outside(texture))
      errors.push_back(where() + texture + " " + *why);
    else if (auto settings = settings_of(texture, slot, *material, errors); settings && uses)
      uses->push_back({texture, *settings, file + " /textures/" + json_pointer_token(slot)});
  }
  material->file = rel;
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
  return input;
}

Result<ScriptInput> ProjectReader::read_script(const std::string& rel,
                                               const std::vector<jit::HostSignature>& host) const {
  if (auto why = outside(rel)) return make_error(shown(rel) + ": " + *why);
  auto text = read_input_file(shown(rel), limits::kScriptBytes, "script");
  if (!text) return text.error();
  auto program = lang::compile_script(shown(rel), *text, host);
  if (!program) return program.error();
  program->file = rel;  // what the cooked bytecode names
  return ScriptInput{rel, std::move(*program)};
}

namespace {

// Why `dir` is there but is no directory to list; nothing when it is a directory or absent.
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

std::vector<std::string> check_source_directories(const ProjectReader& reader) {
  std::vector<std::string> errors;
  for (const char* dir : {"materials", "shaders", "scripts", "textures"})
    if (auto why = not_a_directory(reader.root() / dir)) errors.push_back(reader.shown(dir) + ": " + *why);
  return errors;
}

std::vector<std::string> project_shaders(const ProjectReader& reader) {
  std::set<std::string> ids;
  for (const std::string& rel : list_project_files(reader.root(), "shaders", "")) {
    const fs::path p(rel);
    if (p.parent_path() == "shaders" && runtime::stage_from_path(p))
      ids.insert(runtime::shader_of_stage_file(p).generic_string());
  }
  return {ids.begin(), ids.end()};
}

std::vector<std::string> check_shader_pragmas(const ProjectReader& reader, const materials::ShaderProgram& shader) {
  std::vector<std::string> errors;
  const auto& decl = shader.declaration;
  for (const auto& [pragma, sets] : {std::pair{"ship", &decl.ship}, std::pair{"invalid", &decl.invalid}})
    for (const auto& set : *sets)
      for (const auto& k : set)
        if (!decl.keywords.count(k))
          errors.push_back(reader.shown(shader.id) + ": #pragma kiln " + pragma + " " + joined(set) +
                           ": unknown keyword '" + k + "' (legal keywords: " + joined(decl.keywords) + ")");
  return errors;
}

std::vector<TextureInput> check_texture_uses(const ProjectReader& reader, const std::vector<TextureUse>& uses,
                                             std::vector<std::string>& errors) {
  std::map<std::string, const TextureUse*> first;
  for (const TextureUse& u : uses) {
    auto [it, inserted] = first.try_emplace(u.texture, &u);
    if (!inserted && !(it->second->settings == u.settings))
      errors.push_back(reader.shown(u.texture) + ": used as " + textures::describe_settings(it->second->settings) +
                       " by " + it->second->use + " and as " + textures::describe_settings(u.settings) + " by " +
                       u.use + ": give it one setting (in " +
                       reader.shown(textures::texture_sidecar_path(u.texture).string()) + ")");
  }
  std::vector<TextureInput> out;
  for (const auto& [file, use] : first) out.push_back({file, use->settings});
  return out;
}

std::vector<jit::HostSignature> host_signatures(std::span<const runtime::ParameterFunction> functions) {
  std::vector<jit::HostSignature> out;
  for (const auto& f : functions)
    out.push_back({f.name, std::vector<jit::Type>(f.components, jit::Type::kNumber), jit::Type::kVoid});
  return out;
}

std::vector<runtime::ParameterFunction> parameter_functions(const std::vector<MaterialInput>& materials) {
  std::vector<const runtime::MaterialRecord*> records;
  records.reserve(materials.size());
  for (const auto& m : materials) records.push_back(&m.record);
  return runtime::parameter_functions(std::move(records));
}

std::vector<jit::HostSignature> host_signatures(const std::vector<MaterialInput>& materials) {
  return host_signatures(parameter_functions(materials));
}

}  // namespace kiln::project
