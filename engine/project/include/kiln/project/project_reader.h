#pragma once
// The project's files one at a time, with the checks and messages load_project makes of them: what
// the editor runs on each edit, so that it refuses what the cook refuses, in the same words.
//
// Thread-safety: one thread at a time (it remembers the texture sidecars it read), except
// read_material_file, which any thread may call.

#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/jit/types.h"
#include "kiln/project/project.h"
#include "kiln/runtime/script_api.h"

namespace kiln::project {

// One use of a texture by a material's slot, with the settings it asks for.
struct TextureUse {
  std::string texture;  // relative to the root
  textures::TextureSettings settings;
  std::string use;  // for messages: "materials/brick.json /textures/albedo" as shown
};

class ProjectReader {
 public:
  ProjectReader(std::filesystem::path root, materials::ShaderCatalog& shaders);

  // The root as the caller named it, then `rel`: how messages name a file.
  std::string shown(const std::string& rel) const;
  // Why `rel` may not be read: it leads (through symbolic links) outside the project and its
  // include directories; nothing when it may.
  std::optional<std::string> outside(const std::string& rel) const;
  // For one pass over a project that does not change meanwhile (a cook's load): outside() then
  // resolves each directory, and each file, once. Off by default: a reader that lives across edits
  // (the editor's) resolves every time, since a file may become a link.
  void remember_resolved_paths() { remember_paths_ = true; }

  // A material (`rel` under the root): read, parsed, its shader loaded and its keywords checked,
  // each texture present, inside and with readable settings. Every problem is added to `errors`;
  // nothing is returned when the material cannot be used at all. `uses` receives each texture's
  // use here (for the check across materials: check_texture_uses).
  std::optional<MaterialInput> read_material(const std::string& rel, std::vector<std::string>& errors,
                                             std::vector<TextureUse>* uses = nullptr);
  // read_material in two steps, for a load that reads many materials at once. The first reads and
  // parses the file: it touches nothing the reader remembers, so it may run on any thread, for a
  // `rel` outside() let through. The second makes the rest of read_material's checks, on the
  // reader's thread.
  Result<materials::Material> read_material_file(const std::string& rel) const;
  std::optional<MaterialInput> check_material(const std::string& rel, Result<materials::Material> material,
                                              std::vector<std::string>& errors, std::vector<TextureUse>* uses);

  // A script compiled against the engine functions `host` (host_signatures of the materials).
  Result<ScriptInput> read_script(const std::string& rel, const std::vector<jit::HostSignature>& host) const;

  // Forgets what was read of `texture`'s sidecar (it changed on disk).
  void forget_sidecar(const std::string& texture) { sidecars_.erase(texture); }

  const std::filesystem::path& root() const { return root_; }
  materials::ShaderCatalog& shaders() const { return shaders_; }

 private:
  // Whether `rel` is there (as itself: a dangling link is there); remembered as outside() is.
  bool present(const std::string& rel) const;
  std::optional<textures::TextureSettings> settings_of(const std::string& texture, const std::string& slot,
                                                       const materials::Material& m, std::vector<std::string>& errors);

  std::filesystem::path root_;
  std::string normal_root_;  // root_, lexically normal: a file's shown name is this joined to its name
  materials::ShaderCatalog& shaders_;
  std::map<std::string, std::optional<textures::TextureOptions>> sidecars_;  // nullopt: none (or broken)
  std::map<std::string, std::string> failed_shaders_;                        // id -> why, said once
  bool remember_paths_ = false;
  mutable std::map<std::string, std::optional<std::string>> outside_;  // rel -> outside(rel)
  mutable std::map<std::filesystem::path, bool> inside_dirs_;          // directory -> resolves inside
  mutable std::map<std::string, bool> present_;                        // rel -> present(rel)
};

// The project's source directories (materials, shaders, scripts, textures) that are there but are
// not directories (a FIFO, a file, a link to nothing): each one an error, else it would read as
// empty and its files be skipped.
std::vector<std::string> check_source_directories(const ProjectReader& reader);

// The shader ids of the project: a stage file directly under shaders/ ("shaders/lit").
std::vector<std::string> project_shaders(const ProjectReader& reader);
// A shader's `#pragma kiln ship` and `invalid` name only keywords it declares; each one that does
// not is an error naming the file, the pragma and the legal keywords.
std::vector<std::string> check_shader_pragmas(const ProjectReader& reader, const materials::ShaderProgram& shader);

// Every texture used with one setting: the first use of each, and an error (added to `errors`)
// for each use that asks for other settings than the first, naming both and the sidecar to fix.
std::vector<TextureInput> check_texture_uses(const ProjectReader& reader, const std::vector<TextureUse>& uses,
                                             std::vector<std::string>& errors);

// The engine functions scripts may call: one per authored material parameter.
std::vector<runtime::ParameterFunction> parameter_functions(const std::vector<MaterialInput>& materials);
std::vector<jit::HostSignature> host_signatures(std::span<const runtime::ParameterFunction> functions);
std::vector<jit::HostSignature> host_signatures(const std::vector<MaterialInput>& materials);

}  // namespace kiln::project
