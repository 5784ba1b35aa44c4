#pragma once
// The state of `kiln editor`: a project's materials with their active variants, its scripts, and
// the textures materials name, kept current as files change. Each change becomes one
// event (JSON): what changed, what was invalidated, what was recompiled and how long it took, or
// the error — in which case the last good version stays in use.
//
// - a shader stage or include: the ShaderLibrary bumps the revision of every shader that reads it
//   and drops their stale variants; their active variants are rebuilt (a content the persistent
//   cache has seen is a disk hit) and published; a compile error keeps the last good variant,
//   marked stale;
// - a material: re-validated; its keyword set resolves to variants (hits where they exist);
// - a script: recompiled to bytecode; only pages whose bytes changed get new code (the others are
//   already compiled, or in the JIT page cache); an error keeps the previous version;
// - a texture source or .tx: that image's tiles are dropped and the .tx regenerated; a broken one
//   is an error event and the previous image stays, and its later fix is picked up;
// - a removed stage file of a shader in use is an error (the shader would silently lose a stage);
//   the last good variants stay. Removed files nothing reads are not events;
// - kiln.json: its include directories, defines and default target are what shaders compile with,
//   as the cook compiles them; a change reloads the project with them ("settings"), a broken file
//   is a "settings_error" and the previous settings stay.
//
// Thread-safety: owned by the editor's event loop thread; variants compile on the tool's worker
// pool (the one the cook uses too).

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "editor/file_watcher.h"
#include "editor/preview_worker.h"
#include "kiln/cache/blob_store.h"
#include "kiln/core/config.h"
#include "kiln/core/worker_pool.h"
#include "kiln/jit/jit_runtime.h"
#include "kiln/jit/compiler_plugin.h"
#include "kiln/materials/material.h"
#include "kiln/materials/material_layout.h"
#include "kiln/project/project_reader.h"
#include "kiln/shadercache/shader_library.h"
#include "kiln/textures/tile_cache.h"

namespace kiln::editor {

class EditorSession {
 public:
  EditorSession(std::filesystem::path root, const Config& config);
  // After each edit that builds, the previews of the materials it changed are drawn again (into a
  // private directory of the session's, removed with it) on a worker of their own: the edit's
  // event names them ("previewing") and their pictures come as events of their own
  // (take_preview_events). Why the worker cannot start. `recorder` (may be null; it must outlive
  // the session): the materials drawn are recorded into it (kiln editor --record-usage).
  Status enable_previews(usage::UsageRecorder* recorder = nullptr);
  ~EditorSession();

  nlohmann::json start();  // loads everything; the "ready" event
  std::vector<nlohmann::json> handle(const std::vector<FileChange>& batch);
  nlohmann::json status() const;  // statistics of the three caches
  // For the editor's page (before start()): thumbnails of the textures are written beside the
  // previews, and page_state() says what the page shows.
  void enable_page() { page_ = true; }
  // The project as the page shows it: materials (passes, variants with their digest, state and
  // compile time, parameters, picture), shaders and their errors at file:line with the source line,
  // scripts and their pages, textures and their thumbnails, and the caches (cache_figures()).
  nlohmann::json page_state() const;
  nlohmann::json cache_figures() const;  // each cache kind: entries, bytes, hits, misses
  // Readable while the previews' events wait (-1 without previews); the events, as handle() gives
  // them.
  int preview_fd() const { return previews_ ? previews_->fd() : -1; }
  std::vector<nlohmann::json> take_preview_events();

 private:
  struct MaterialState {
    materials::Material material;
    std::vector<materials::VariantKey> variants;    // active: one per pass, current revision
    runtime::MaterialRecord record;                 // as the cook records it, laid out by lay_out()
    std::vector<project::TextureUse> texture_uses;  // the settings each texture slot asks for
  };
  struct Built {
    std::size_t compiled = 0, cache_hits = 0;
    std::vector<std::string> errors;
    std::vector<std::string> warnings;  // the compiler's, each once, project-relative
  };

  // `keys` built on the worker pool; `landed(i)`, when given, is called as keys[i] builds without
  // error (one call at a time, under the build's lock, while the calling thread waits).
  Built build(const std::vector<materials::VariantKey>& keys, const std::function<void(std::size_t)>& landed = {});
  static void add(Built& into, Built more);  // counts summed, messages merged (each once)
  // The material's parameters and texture slots checked against the variants it uses now and laid
  // out into its record (materials::lay_out_material, as the cook does); the cook's error if not.
  Status lay_out(MaterialState& state);
  // Every texture used with one setting over the materials as they are now, with `edited` in place
  // of its previous version: the cook's check across materials, in its words.
  std::vector<std::string> texture_conflicts(const std::string& edited, const MaterialState* state) const;
  // The variants `m` uses now; notes the stage files of its shader.
  std::vector<materials::VariantKey> active_variants(const materials::Material& m);
  nlohmann::json material_changed(const FileChange& change);
  nlohmann::json load_all(const std::string& kind, const std::string& file);  // start() and a settings reload
  // A request to the preview worker for the change handled now, with what waits to be sent.
  PreviewWorker::Request preview_request(const std::string& kind, const std::string& file, bool last = true);
  // The material laid out again against its variants as they are now, put in `request` with them
  // and the textures the worker lacks, and its picture asked for; or why it cannot be drawn.
  void stage_preview(const std::string& material, PreviewWorker::Request& request);
  // The previews of `materials` drawn again for the change handled now ("previewing" in `event`).
  void send_previews(nlohmann::json& event, const std::vector<std::string>& materials);
  std::vector<std::string> materials_naming_texture(const std::string& texture) const;  // their project paths
  nlohmann::json shader_changed(const FileChange& change);
  nlohmann::json script_changed(const FileChange& change);
  nlohmann::json texture_changed(const FileChange& change);
  nlohmann::json settings_changed(const FileChange& change);
  // The engine functions scripts may call are the materials' parameters: when a material edit
  // changes them, every script is compiled again against them, as the cook would compile it
  // ("scripts" in `event`; a script that no longer compiles: "script_errors", its last good
  // version kept).
  void redeclare_engine_functions(nlohmann::json& event);
  std::vector<jit::HostSignature> engine_functions() const;  // of the materials as they are now
  // Every script of the project compiled against script_host_ (into scripts_, precompiled):
  // those that compiled; the others' errors into `errors`.
  std::vector<std::string> compile_scripts(std::vector<std::string>& errors);
  // The shader library and the project's checks on it, for settings_: compiled as the cook
  // compiles the default target.
  void open_library();
  bool in_include_dir(const std::string& path) const;  // a file under one of settings_' include dirs
  Status load_texture(const std::string& rel);         // on success, replaces the image in images_
  void write_thumbnail(const std::string& rel, const std::shared_ptr<textures::TiledImage>& image);
  // A script's pages as its last compile left them, for the page.
  void note_script(const std::string& rel, const jit::JitStats& before);
  void note_shader_errors(const std::vector<std::string>& errors);  // into shader_errors_, by stage file
  std::vector<std::string> materials_using(const std::string& shader) const;
  nlohmann::json project_relative(nlohmann::json event) const;  // file paths in its messages
  std::string relative(std::string message) const;              // the same for one message

  std::filesystem::path root_;
  Config config_;
  std::chrono::steady_clock::time_point change_seen_;  // the first raw event of the change handled now
  core::WorkerPool pool_;                              // `jobs` threads
  std::unique_ptr<cache::BlobStore> store_;            // the process's one cache store: first in, last out
  project::ProjectSettings settings_;                  // kiln.json as last read without error (else the defaults)
  std::vector<std::string> settings_errors_;           // why kiln.json could not be read at start
  std::unique_ptr<shadercache::ShaderLibrary> library_;
  std::unique_ptr<project::ProjectReader> reader_;               // the project model's checks, on library_
  std::map<std::string, MaterialState> materials_;               // by path relative to the root
  std::map<std::string, std::vector<std::string>> stage_files_;  // shader id -> its stage files when last read
  std::unique_ptr<jit::PluginPageCompiler> compiler_;
  std::unique_ptr<jit::JitRuntime> jit_;
  std::map<std::string, jit::Program> scripts_;
  // The engine functions scripts may call: the materials' parameters, as they are now.
  std::vector<jit::HostSignature> script_host_;
  std::unique_ptr<PreviewWorker> previews_;
  std::uint64_t change_id_ = 0;             // of the change handled now
  std::string change_kind_, change_file_;   // what it is and the file it is about
  std::set<std::string> preview_textures_;  // textures the worker holds, as records name them
  std::vector<std::string> textures_gone_;  // changed since sent: the next request drops them
  bool clear_previews_ = false;             // the next request lets every material go first
  std::unique_ptr<textures::TileCache> tiles_;
  std::map<std::string, std::shared_ptr<textures::TiledImage>> images_;  // texture path -> open image
  std::set<std::string> textures_;  // every texture a material names, loaded or not

  // What the page shows besides the above (kept only for it).
  struct ScriptPages {
    std::size_t pages = 0, compiled = 0, loaded = 0;
  };
  bool page_ = false;
  std::map<std::string, double> variant_ms_;                       // variant name -> its last build, ms
  std::map<std::string, std::vector<std::string>> shader_errors_;  // shader id -> its last build's errors
  std::map<std::string, std::string> material_errors_;             // material -> why it does not build
  std::map<std::string, ScriptPages> script_pages_;
  std::map<std::string, std::string> script_errors_;  // script -> why it does not compile
};

}  // namespace kiln::editor
