// EditorSession::page_state: the project as the editor's page shows it.

#include <fstream>
#include <regex>

#include "editor/editor_session.h"
#include "kiln/cache/hash.h"
#include "kiln/core/project_paths.h"
#include "kiln/textures/image.h"
#include "kiln/textures/thumbnail.h"

namespace kiln::editor {
namespace fs = std::filesystem;
namespace {

// A 12-digit digest of a variant's SPIR-V, as the page shows it.
std::string spirv_digest(const shadercache::CompiledVariant& variant) {
  cache::Xxh3Stream hash;
  for (const auto& stage : variant.stages)
    hash.update(std::string_view(reinterpret_cast<const char*>(stage.spirv.data()), stage.spirv.size() * 4));
  return hash.digest128().hex().substr(0, 12);
}

// Line `line` (from 1) of a project file, for an error's context; empty when it cannot be read.
std::string source_line(const fs::path& root, const std::string& file, int line) {
  const fs::path path = root / file;
  if (line < 1 || !resolves_inside(path, canonical_roots({root}))) return {};
  std::ifstream in(path);
  std::string text;
  for (int i = 0; i < line && std::getline(in, text); ++i) {}
  return in ? text.substr(0, 400) : std::string();
}

}  // namespace

nlohmann::json EditorSession::page_state() const {
  nlohmann::json materials = nlohmann::json::array();
  for (const auto& [rel, state] : materials_) {
    nlohmann::json passes = nlohmann::json::array();
    for (const auto& key : state.variants) {
      nlohmann::json pass = {{"pass", key.pass}, {"variant", key.name()}};
      // Fresh: built at the shader's current revision; stale: an older one kept after an error.
      const auto good = library_->cache().last_good(key);
      pass["state"] = !good ? "error" : good->revision == key.source_revision ? "fresh" : "stale";
      if (good) pass["digest"] = spirv_digest(*good->variant);
      if (auto ms = variant_ms_.find(key.name()); ms != variant_ms_.end()) pass["compile_ms"] = ms->second;
      passes.push_back(std::move(pass));
    }
    nlohmann::json params = nlohmann::json::array();
    for (const auto& [name, values] : state.material.params) params.push_back({{"name", name}, {"value", values}});
    nlohmann::json material = {{"file", rel},
                               {"shader", state.material.shader},
                               {"keywords", state.material.keywords},
                               {"passes", passes},
                               {"params", params},
                               {"textures", state.material.textures}};
    if (previews_) {
      const std::string picture = fs::path(rel).replace_extension(".png").generic_string();
      std::error_code ec;
      if (fs::exists(previews_->dir() / picture, ec)) material["picture"] = "/pictures/" + picture;
    }
    if (auto error = material_errors_.find(rel); error != material_errors_.end()) material["error"] = error->second;
    materials.push_back(std::move(material));
  }
  for (const auto& [rel, error] : material_errors_)  // those that never loaded
    if (!materials_.count(rel)) materials.push_back({{"file", rel}, {"error", error}});

  // Shaders with the variants materials use and their errors, each as file:line and its source.
  static const std::regex located(R"(^([^:\s]+):(\d+): (.*)$)");
  nlohmann::json shaders = nlohmann::json::array();
  for (const auto& [id, files] : stage_files_) {
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& [rel, state] : materials_)
      if (state.material.shader == id)
        for (const auto& key : state.variants)
          if (std::find(variants.begin(), variants.end(), key.name()) == variants.end()) variants.push_back(key.name());
    nlohmann::json errors = nlohmann::json::array();
    if (auto found = shader_errors_.find(id); found != shader_errors_.end())
      for (const std::string& message : found->second)
        for (std::size_t at = 0; at < message.size();) {
          const std::size_t end = std::min(message.find('\n', at), message.size());
          const std::string line = message.substr(at, end - at);
          at = end + 1;
          std::smatch m;
          if (std::regex_match(line, m, located)) {
            const int number = std::stoi(m[2].str());
            errors.push_back({{"file", m[1].str()},
                              {"line", number},
                              {"message", m[3].str()},
                              {"source", source_line(root_, m[1].str(), number)}});
          } else if (!line.empty()) {
            errors.push_back({{"message", line}});
          }
        }
    shaders.push_back({{"id", id}, {"stage_files", files}, {"variants", variants}, {"errors", errors}});
  }

  nlohmann::json scripts = nlohmann::json::array();
  for (const auto& [rel, pages] : script_pages_) {
    nlohmann::json script = {{"file", rel},
                             {"pages", pages.pages},
                             {"compiled", pages.compiled},
                             {"from_cache", pages.loaded},
                             {"interpreted", pages.pages - std::min(pages.pages, pages.compiled + pages.loaded)}};
    if (auto error = script_errors_.find(rel); error != script_errors_.end()) script["error"] = error->second;
    scripts.push_back(std::move(script));
  }
  for (const auto& [rel, error] : script_errors_)
    if (!script_pages_.count(rel)) scripts.push_back({{"file", rel}, {"error", error}});

  nlohmann::json textures = nlohmann::json::array();
  for (const std::string& rel : textures_) {
    nlohmann::json texture = {{"file", rel}};
    if (auto image = images_.find(rel); image != images_.end()) {
      const auto& levels = image->second->info().levels;
      if (!levels.empty()) texture["width"] = levels[0].width, texture["height"] = levels[0].height;
      texture["levels"] = levels.size();
    }
    if (previews_) {
      const std::string thumbnail = "thumbnails/" + rel + ".png";
      std::error_code ec;
      if (fs::exists(previews_->dir() / thumbnail, ec)) texture["thumbnail"] = "/pictures/" + thumbnail;
    }
    textures.push_back(std::move(texture));
  }

  return {{"project",
           root_.filename().string().empty() ? root_.parent_path().filename().string() : root_.filename().string()},
          {"materials", materials},
          {"shaders", shaders},
          {"scripts", scripts},
          {"textures", textures},
          {"caches", cache_figures()}};
}

nlohmann::json EditorSession::cache_figures() const {
  // Each cache kind over the session: what it holds and how often it answered.
  const auto variants = library_->cache().stats();
  const auto lib = library_->stats();
  const auto tiles = tiles_->stats().tiles;
  nlohmann::json caches = {{"shaders",
                            {{"entries", variants.entries},
                             {"bytes", variants.bytes_resident},
                             {"hits", variants.l1_hits + variants.l2_hits + lib.disk_hits},
                             {"misses", lib.compiles}}},
                           {"textures",
                            {{"entries", tiles.entries},
                             {"bytes", tiles.bytes_resident},
                             {"hits", tiles.l1_hits + tiles.l2_hits},
                             {"misses", tiles.misses}}}};
  if (jit_) {
    const auto s = jit_->stats();
    caches["jit"] = {{"entries", s.compiled + s.loaded}, {"hits", s.loaded}, {"misses", s.compiled}};
  }
  return caches;
}

void EditorSession::write_thumbnail(const std::string& rel, const std::shared_ptr<textures::TiledImage>& image) {
  if (!previews_ || !page_) return;
  auto thumbnail = textures::make_thumbnail(*tiles_, image, 96);
  if (!thumbnail) return;  // the page shows the texture without one
  const fs::path path = previews_->dir() / "thumbnails" / (rel + ".png");
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  (void)textures::write_png(*thumbnail, path, {.fast = true, .durability = Durability::kRenamedOnly});
}

}  // namespace kiln::editor
