#include "editor/editor_session.h"
#include "persistent_caches.h"
#include "project_library.h"
#include "script_runtime.h"
#include "script_host.h"
#include "variant_records.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>

#include "kiln/core/project_paths.h"
#include "kiln/core/text.h"
#include "kiln/lang/script.h"
#include "kiln/textures/texture_path.h"
#include "kiln/textures/thumbnail.h"

namespace kiln::editor {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

bool has_extension(const std::string& path, std::initializer_list<const char*> extensions) {
  const std::string ext = fs::path(path).extension().string();
  for (const char* e : extensions)
    if (ext == e) return true;
  return false;
}

}  // namespace

EditorSession::EditorSession(fs::path root, const Config& config)
    : root_(std::move(root)), config_(config), pool_(config.jobs) {
  if (!pool_.shortfall().empty())
    std::fprintf(stderr, "kiln editor: %s: slower than --jobs asks\n", pool_.shortfall().c_str());
  store_ = cli::open_cache_store(config, "kiln editor", cli::open_remote_level(config, "kiln editor"));
  if (auto settings = project::load_project_settings(root_)) {
    settings_ = std::move(*settings);
  } else {
    settings_errors_ = split_nonempty(settings.error().message, '\n');
    settings_.targets.emplace_back();  // the defaults, as without the file
  }
  open_library();
  compiler_ = cli::open_page_compiler(cli::jit_store(config, store_.get()), "kiln editor");
  if (compiler_) {  // without one, scripts run interpreted (said on stderr)
    auto jit = cli::open_jit_runtime({.compiler = compiler_.get(),
                                      .store = cli::jit_store(config, store_.get()),
                                      .synchronous = true,
                                      .hot_threshold = 1},
                                     "kiln editor");
    if (jit) jit_ = std::move(*jit);
  }
  tiles_ = std::make_unique<textures::TileCache>(
      textures::TileCacheOptions{.memory_budget_bytes = config.texture_memory_max_bytes, .conversions = store_.get()});
}

EditorSession::~EditorSession() {
  // On exit the cap and the build limit hold over every kind again (after the users of the store
  // that write through it are gone).
  tiles_.reset();
  jit_.reset();
  reader_.reset();
  library_.reset();
  if (store_) (void)store_->prune();
}

void EditorSession::open_library() {
  reader_.reset();
  library_ = std::make_unique<shadercache::ShaderLibrary>(cli::project_library_options(
      root_, settings_, settings_.targets.front(), config_, cli::shader_store(config_, store_.get())));
  reader_ = std::make_unique<project::ProjectReader>(root_, *library_);
}

bool EditorSession::in_include_dir(const std::string& path) const {
  for (const std::string& dir : settings_.include_dirs)
    if (path.rfind(dir + "/", 0) == 0) return true;
  return false;
}

Status EditorSession::lay_out(MaterialState& state) {
  // The reflection of each pass's variant: handles keep the variants alive for the call.
  std::vector<shadercache::VariantCache::Handle> held;
  materials::VariantReflections reflections;
  for (const runtime::MaterialPass& pass : state.record.passes) {
    auto v = library_->variant(state.material.shader, pass.pass, state.material.keywords);
    if (!v) continue;  // its build error is said on its own; the layout names the variant as not built
    for (const auto& stage : (*v)->stages) reflections[pass.variant].push_back(&stage.reflection);
    held.push_back(std::move(*v));
  }
  return materials::lay_out_material(state.material, reflections, state.record);
}

std::vector<std::string> EditorSession::texture_conflicts(const std::string& edited, const MaterialState* state) const {
  // By file, as the cook meets the materials: the first use named in a message is the same.
  std::map<std::string, const std::vector<project::TextureUse>*> by_file;
  for (const auto& [rel, other] : materials_) by_file[rel] = &other.texture_uses;
  if (state) by_file[edited] = &state->texture_uses;
  std::vector<project::TextureUse> uses;
  for (const auto& [rel, material_uses] : by_file)
    uses.insert(uses.end(), material_uses->begin(), material_uses->end());
  std::vector<std::string> errors;
  (void)project::check_texture_uses(*reader_, uses, errors);
  return errors;
}

std::vector<materials::VariantKey> EditorSession::active_variants(const materials::Material& m) {
  std::vector<materials::VariantKey> keys;
  auto program = library_->program(m.shader);
  if (!program) return keys;
  stage_files_[(*program)->id] = (*program)->stage_files;
  for (const std::string& pass : (*program)->declaration.pass_order)
    keys.push_back(library_->key(m.shader, pass, m.keywords));
  return keys;
}

// Builds `keys` on the worker pool: compiles, or disk hits for content the cache has seen.
EditorSession::Built EditorSession::build(const std::vector<materials::VariantKey>& keys,
                                          const std::function<void(std::size_t)>& landed) {
  Built built;
  std::size_t failed = 0;
  // Builds run one batch at a time: the library's compile counter says how many were compiled;
  // the rest came from memory or disk.
  const auto before = library_->stats();
  std::mutex mu;
  pool_.parallel_for(keys.size(), [&](std::size_t i) {
    const auto started = Clock::now();
    auto v = library_->variant(keys[i].shader, keys[i].pass, keys[i].keyword_list());
    std::lock_guard lock(mu);
    variant_ms_[keys[i].name()] = ms_between(started, Clock::now());
    if (!v) {
      built.errors.push_back(v.error().message), ++failed;
      return;
    }
    if (landed) landed(i);
    for (const auto& stage : (*v)->stages) {
      std::istringstream lines(stage.warnings);
      for (std::string line; std::getline(lines, line);) built.warnings.push_back(line);
    }
  });
  const auto after = library_->stats();
  built.compiled = (after.compiles - before.compiles) - (after.compile_errors - before.compile_errors);
  built.cache_hits = keys.size() - failed - built.compiled;
  std::sort(built.errors.begin(), built.errors.end());
  built.errors.erase(std::unique(built.errors.begin(), built.errors.end()), built.errors.end());
  std::sort(built.warnings.begin(), built.warnings.end());
  built.warnings.erase(std::unique(built.warnings.begin(), built.warnings.end()), built.warnings.end());
  return built;
}

void EditorSession::add(Built& into, Built more) {
  into.compiled += more.compiled;
  into.cache_hits += more.cache_hits;
  for (auto* list : {&into.errors, &into.warnings}) {
    auto& from = list == &into.errors ? more.errors : more.warnings;
    list->insert(list->end(), from.begin(), from.end());
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
}

Status EditorSession::load_texture(const std::string& rel) {
  textures_.insert(rel);
  if (fs::path resolved; !resolves_inside(root_ / rel, library_->roots(), &resolved))
    return make_error((root_ / rel).string() + ": leads outside the project and its include directories (to " +
                      resolved.string() + ")");
  auto image = tiles_->open_texture(root_ / rel);
  if (!image) return image.error();
  images_[rel] = *image;
  write_thumbnail(rel, *image);
  // Previews draw from the new image from now on (records name it in normal form): the worker's
  // copy goes with the next request, and the new one is sent when a material needs it.
  if (const std::string named = fs::path(rel).lexically_normal().generic_string(); preview_textures_.erase(named))
    textures_gone_.push_back(named);
  (void)textures::make_thumbnail(*tiles_, *image, 64);  // what a material preview reads
  return {};
}

std::vector<std::string> EditorSession::materials_using(const std::string& shader) const {
  std::vector<std::string> out;
  for (const auto& [rel, state] : materials_)
    if (state.material.shader == shader) out.push_back(rel);
  return out;
}

nlohmann::json EditorSession::start() { return load_all("ready", {}); }

nlohmann::json EditorSession::load_all(const std::string& kind, const std::string& file) {
  const auto t0 = Clock::now();
  if (kind == "ready") change_seen_ = t0;  // the pixels of the ready event count from the start
  ++change_id_;
  material_errors_.clear(), shader_errors_.clear(), script_pages_.clear(), script_errors_.clear();
  // The project's own checks first, as the cook makes them: its settings, its source directories,
  // its shaders' pragmas.
  std::vector<std::string> errors = settings_errors_;
  for (std::string& problem : project::check_source_directories(*reader_)) errors.push_back(std::move(problem));
  for (const std::string& id : project::project_shaders(*reader_))
    if (auto program = library_->program(id))
      for (std::string& problem : project::check_shader_pragmas(*reader_, **program))
        errors.push_back(std::move(problem));
  std::vector<materials::VariantKey> all;
  for (const std::string& rel : list_project_files(root_, "materials", ".json")) {
    std::vector<project::TextureUse> uses;
    const std::size_t had = errors.size();
    auto input = reader_->read_material(rel, errors, &uses);
    for (std::size_t i = had; i < errors.size(); ++i)
      material_errors_[rel] += (i > had ? "\n" : "") + relative(errors[i]);
    if (!input) continue;
    MaterialState state{input->source, active_variants(input->source), input->record, std::move(uses)};
    all.insert(all.end(), state.variants.begin(), state.variants.end());
    for (const auto& [slot, texture] : input->source.textures)
      if (!textures_.count(texture))
        if (auto loaded = load_texture(texture); !loaded) errors.push_back(loaded.error().message);
    materials_[rel] = std::move(state);
  }
  const Built built = build(all);
  errors.insert(errors.end(), built.errors.begin(), built.errors.end());
  note_shader_errors(built.errors);
  // Each material's parameters and texture slots against the variants it uses, as the cook lays
  // them out.
  for (auto& [rel, state] : materials_)
    if (auto laid = lay_out(state); !laid) {
      errors.push_back(laid.error().message);
      material_errors_[rel] = relative(laid.error().message);
    }
  for (std::string& conflict : texture_conflicts({}, nullptr)) errors.push_back(std::move(conflict));
  // The engine functions scripts may call: the parameters of the materials just loaded.
  script_host_ = engine_functions();
  std::size_t pages = 0;
  for (const std::string& rel : compile_scripts(errors)) pages += scripts_.at(rel).page_count();
  nlohmann::json event = {{"event", kind},
                          {"materials", materials_.size()},
                          {"variants", all.size()},
                          {"compiled", built.compiled},
                          {"cache_hits", built.cache_hits},
                          {"scripts", scripts_.size()},
                          {"pages", pages},
                          {"textures", images_.size()},
                          {"errors", errors}};
  if (!file.empty()) event["file"] = file;
  event["ms"] = ms_between(t0, Clock::now());
  // Every material has its picture from the start, not only after its first edit.
  if (previews_) {
    std::vector<std::string> all_materials;
    for (const auto& [rel, state] : materials_) all_materials.push_back(rel);
    send_previews(event, all_materials);
    event["previews_dir"] = previews_->dir().string();
  }
  return project_relative(std::move(event));
}

std::vector<nlohmann::json> EditorSession::handle(const std::vector<FileChange>& batch) {
  std::vector<nlohmann::json> events;
  const auto handling = Clock::now();
  for (const FileChange& change : batch) {
    // Detection: from the first raw event of the burst to its handling (the debounce included).
    const double detect_ms = ms_between(change.first_seen, handling);
    change_seen_ = change.first_seen;
    ++change_id_;
    nlohmann::json event;
    if (change.path.rfind("materials/", 0) == 0 && has_extension(change.path, {".json"}))
      event = material_changed(change);
    else if (change.path.rfind("shaders/", 0) == 0 || in_include_dir(change.path))
      event = shader_changed(change);
    else if (change.path == project::kSettingsFile)
      event = settings_changed(change);
    else if (change.path.rfind("scripts/", 0) == 0 && has_extension(change.path, {".lua"}))
      event = script_changed(change);
    else  // an image a material names, in any source format, its .tx or its sidecar; else nothing
      event = texture_changed(change);
    if (event.is_null()) continue;
    event["detect_ms"] = detect_ms;
    events.push_back(std::move(event));
  }
  for (auto& event : events) event = project_relative(std::move(event));
  return events;
}

nlohmann::json EditorSession::shader_changed(const FileChange& change) {
  const auto t0 = Clock::now();
  // A removed stage file of a shader in use: building would silently drop the stage.
  std::vector<std::string> lost_stage;
  if (!change.exists) {
    for (const auto& [id, files] : stage_files_)
      if (std::find(files.begin(), files.end(), change.path) != files.end() && !materials_using(id).empty())
        lost_stage.push_back(id);
  }
  const std::vector<std::string> shaders = library_->file_changed(change.path);
  if (shaders.empty() && !change.exists) return nullptr;  // nothing read it
  if (!lost_stage.empty()) {
    nlohmann::json errors = nlohmann::json::array();
    std::size_t kept = 0;
    for (const std::string& id : lost_stage) {
      std::string users;
      for (const std::string& m : materials_using(id)) {
        users += (users.empty() ? "" : ", ") + m;
        kept += materials_[m].variants.size();
      }
      errors.push_back(change.path + ": removed, but it is a stage of " + id + " (used by " + users +
                       "); the last good variants stay in use until it is back");
    }
    return {{"event", "shader_error"},
            {"file", change.path},
            {"shaders", shaders},
            {"errors", errors},
            {"kept_last_good", kept}};
  }
  // The active variants of exactly those shaders, at their new revision, in the order of the
  // materials using them: a material's picture goes to the preview worker as soon as its own
  // variants have landed, and is drawn while the others compile.
  std::vector<std::string> users;
  std::vector<materials::VariantKey> keys;
  std::vector<std::vector<std::size_t>> needed_by;  // by key: the users that need it
  for (auto& [rel, state] : materials_) {
    if (std::find(shaders.begin(), shaders.end(), state.material.shader) == shaders.end()) continue;
    state.variants = active_variants(state.material);
    for (const auto& k : state.variants) {
      const auto at = std::size_t(std::find(keys.begin(), keys.end(), k) - keys.begin());
      if (at == keys.size()) keys.push_back(k), needed_by.emplace_back();
      needed_by[at].push_back(users.size());
    }
    users.push_back(rel);
  }
  std::vector<std::size_t> waiting(users.size());  // variants each user still waits for
  for (std::size_t u = 0; u < users.size(); ++u) waiting[u] = materials_.at(users[u]).variants.size();
  std::vector<bool> sent(users.size(), false);
  // Called under the build's lock, one at a time, while this thread waits for the build: what it
  // touches (that user's state, the request's inputs) nothing else touches meanwhile.
  const auto landed = [&](std::size_t i) {
    for (std::size_t u : needed_by[i]) {
      if (--waiting[u] > 0) continue;
      auto request = preview_request("shader", change.path, /*last=*/false);
      stage_preview(users[u], request);
      previews_->submit(std::move(request));
      sent[u] = true;
    }
  };
  const auto compiled_at = Clock::now();
  Built built = build(keys, previews_ ? std::function<void(std::size_t)>(landed) : nullptr);
  const auto built_at = Clock::now();
  // Its pragmas as the cook checks them: `ship` and `invalid` name only declared keywords.
  for (const std::string& id : shaders)
    if (auto program = library_->program(id))
      for (std::string& problem : project::check_shader_pragmas(*reader_, **program))
        built.errors.push_back(std::move(problem));
  nlohmann::json variants = nlohmann::json::array();
  std::size_t stale = 0;
  for (const auto& k : keys) {
    variants.push_back(k.name());
    if (!built.errors.empty() && library_->cache().last_good(k)) ++stale;
  }
  nlohmann::json event = {{"event", built.errors.empty() ? "shader" : "shader_error"},
                          {"file", change.path},
                          {"shaders", shaders},
                          {"invalidated", keys.size()},
                          {"variants", variants},
                          {"recompiled", built.compiled},
                          {"cache_hits", built.cache_hits},
                          {"compile_ms", ms_between(compiled_at, built_at)},
                          {"publish_ms", ms_between(t0, compiled_at) + ms_between(built_at, Clock::now())}};
  if (!built.warnings.empty()) event["warnings"] = built.warnings;
  for (const std::string& id : shaders) shader_errors_.erase(id);
  if (!built.errors.empty()) {
    event["errors"] = built.errors;
    event["kept_last_good"] = stale;  // still served, marked stale, until a fixed revision compiles
    note_shader_errors(built.errors);
  }
  if (previews_ && !users.empty()) {
    // The pictures of the users whose variants all landed are on their way. The others, which may
    // share variant names with them, are not drawn from this revision: their pictures stay the
    // last good ones.
    auto request = preview_request("shader", change.path);
    nlohmann::json previewing = nlohmann::json::array();
    for (std::size_t u = 0; u < users.size(); ++u)
      if (sent[u])
        previewing.push_back(users[u]);
      else
        request.erase.push_back(users[u]);
    previews_->submit(std::move(request));
    if (!previewing.empty()) event["previewing"] = previewing;
  }
  return event;
}

namespace {

bool same_signatures(const std::vector<jit::HostSignature>& a, const std::vector<jit::HostSignature>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && x.params == y.params && x.result == y.result;
  });
}

}  // namespace

std::vector<jit::HostSignature> EditorSession::engine_functions() const {
  std::vector<runtime::MaterialRecord> records;
  for (const auto& [rel, state] : materials_) records.push_back(state.record);
  return project::host_signatures(runtime::parameter_functions(records));
}

std::vector<std::string> EditorSession::compile_scripts(std::vector<std::string>& errors) {
  std::vector<std::string> compiled;
  for (const std::string& rel : list_project_files(root_, "scripts", ".lua")) {
    auto script = reader_->read_script(rel, script_host_);
    if (!script) {
      errors.push_back(script.error().message);
      script_errors_[rel] = relative(script.error().message);
      continue;
    }
    const jit::JitStats before = jit_ ? jit_->stats() : jit::JitStats{};
    if (jit_) jit_->precompile(script->program, jit::abi::JitMode::kChecked);
    scripts_[rel] = std::move(script->program);
    note_script(rel, before);
    compiled.push_back(rel);
  }
  return compiled;
}

void EditorSession::note_script(const std::string& rel, const jit::JitStats& before) {
  script_errors_.erase(rel);
  const jit::JitStats after = jit_ ? jit_->stats() : jit::JitStats{};
  script_pages_[rel] = {scripts_.at(rel).page_count(), std::size_t(after.compiled - before.compiled),
                        std::size_t(after.loaded - before.loaded)};
}

void EditorSession::note_shader_errors(const std::vector<std::string>& errors) {
  // Each message goes to the shaders whose stage files it names.
  for (const std::string& error : errors) {
    const std::string message = relative(error);
    for (const auto& [id, files] : stage_files_)
      for (const std::string& file : files)
        if (message.find(file) != std::string::npos) {
          shader_errors_[id].push_back(message);
          break;
        }
  }
}

void EditorSession::redeclare_engine_functions(nlohmann::json& event) {
  auto host = engine_functions();
  if (same_signatures(host, script_host_)) return;
  script_host_ = std::move(host);
  // Every script, those that did not compile before too: a function it calls may exist now.
  std::vector<std::string> errors;
  event["scripts"] = compile_scripts(errors);
  if (!errors.empty()) event["script_errors"] = errors;
}

nlohmann::json EditorSession::settings_changed(const FileChange& change) {
  auto settings = project::load_project_settings(root_);
  if (!settings)
    return {{"event", "settings_error"},
            {"file", change.path},
            {"errors", split_nonempty(settings.error().message, '\n')},
            {"kept", "the previous settings stay in use"}};
  if (*settings == settings_ && settings_errors_.empty()) return nullptr;  // nothing that compiles changed
  settings_ = std::move(*settings);
  settings_errors_.clear();
  // Every variant, and so every material's layout, depends on them: the project loads again on a
  // library made for them, as at start.
  materials_.clear();
  clear_previews_ = previews_ != nullptr;
  stage_files_.clear();
  scripts_.clear();
  images_.clear();
  textures_.clear();
  open_library();
  return load_all("settings", change.path);
}

nlohmann::json EditorSession::material_changed(const FileChange& change) {
  if (!change.exists) {
    materials_.erase(change.path);
    material_errors_.erase(change.path);
    if (previews_) {
      auto request = preview_request("material_removed", change.path);
      request.erase.push_back(change.path);
      previews_->submit(std::move(request));
    }
    nlohmann::json event = {{"event", "material_removed"}, {"file", change.path}};
    redeclare_engine_functions(event);
    return event;
  }
  // The checks and words of the cook: the project model reads it.
  std::vector<std::string> problems;
  std::vector<project::TextureUse> uses;
  auto input = reader_->read_material(change.path, problems, &uses);
  if (!input || !problems.empty()) {
    std::string message;
    for (const auto& p : problems) message += (message.empty() ? "" : "\n") + p;
    material_errors_[change.path] = relative(message);
    return {{"event", "material_error"},
            {"file", change.path},
            {"error", message},
            {"kept_previous", materials_.count(change.path) > 0}};
  }
  const auto t0 = Clock::now();
  MaterialState state{input->source, active_variants(input->source), input->record, std::move(uses)};
  Built built = build(state.variants);
  for (std::string& conflict : texture_conflicts(change.path, &state)) built.errors.push_back(std::move(conflict));
  for (const auto& [slot, texture] : input->source.textures)
    if (!textures_.count(texture))
      if (auto loaded = load_texture(texture); !loaded) built.errors.push_back(loaded.error().message);
  if (built.errors.empty())
    if (auto laid = lay_out(state); !laid) built.errors.push_back(laid.error().message);
  nlohmann::json event = {{"event", built.errors.empty() ? "material" : "material_error"},
                          {"file", change.path},
                          {"variants", state.variants.size()},
                          {"recompiled", built.compiled},
                          {"cache_hits", built.cache_hits},
                          {"compile_ms", ms_between(t0, Clock::now())}};
  if (!built.errors.empty()) {
    event["errors"] = built.errors;
    std::string message;
    for (const auto& e : built.errors) message += (message.empty() ? "" : "\n") + e;
    material_errors_[change.path] = relative(message);
    return event;
  }
  material_errors_.erase(change.path);
  materials_[change.path] = std::move(state);
  redeclare_engine_functions(event);
  send_previews(event, {change.path});
  return event;
}

Status EditorSession::enable_previews(usage::UsageRecorder* recorder) {
  // Optimised pipelines are made once the edits pause: an artist saving again soon should not
  // wait for them.
  auto made = PreviewWorker::create(config_.render_device, config_.render_validate, std::chrono::milliseconds(300),
                                    recorder, settings_.targets.front().id());
  if (!made) return made.error();
  previews_ = std::move(*made);
  return {};
}

PreviewWorker::Request EditorSession::preview_request(const std::string& kind, const std::string& file, bool last) {
  PreviewWorker::Request request;
  request.change = change_id_;
  request.last = last;
  request.kind = kind;
  request.file = file;
  request.change_seen = change_seen_;
  request.clear = std::exchange(clear_previews_, false);
  request.texture_gone = std::exchange(textures_gone_, {});
  return request;
}

void EditorSession::stage_preview(const std::string& material, PreviewWorker::Request& request) {
  const auto staged = [&]() -> Status {
    MaterialState& state = materials_.at(material);
    // Laid out against the variants it uses now: a shader edit may have moved its parameters.
    KILN_TRY(lay_out(state));
    PreviewWorker::StagedMaterial laid_out{state.record, {}};
    for (const auto& key : state.variants) {
      auto v = library_->variant(key.shader, key.pass, key.keyword_list());
      if (!v) return v.error();
      laid_out.variants.emplace_back(key.name(), cli::variant_record(**v));
    }
    for (const auto& [slot, texture] : state.material.textures) {
      const std::string& named = state.record.textures.at(slot);  // as the record names it
      if (preview_textures_.count(named)) continue;
      auto image = images_.find(texture);
      if (image == images_.end()) return make_error(texture + ": not loaded");
      auto bytes = textures::TileCache::tx_bytes(*image->second);
      if (!bytes) return bytes.error();
      request.textures.emplace_back(named, std::move(*bytes));
      preview_textures_.insert(named);
    }
    request.put.push_back(std::move(laid_out));
    return {};
  }();
  if (!staged) {
    // Not drawn as it was: its picture would not be what it is now.
    request.erase.push_back(material);
    request.failed.emplace_back(material, staged.error().message);
    return;
  }
  request.draw.push_back(material);
}

void EditorSession::send_previews(nlohmann::json& event, const std::vector<std::string>& materials) {
  if (!previews_ || materials.empty()) return;
  auto request = preview_request(event["event"].get<std::string>(), event.value("file", ""));
  for (const std::string& material : materials) stage_preview(material, request);
  previews_->submit(std::move(request));
  event["previewing"] = materials;
}

std::vector<nlohmann::json> EditorSession::take_preview_events() {
  std::vector<nlohmann::json> events;
  if (previews_)
    for (auto& event : previews_->take_events()) events.push_back(project_relative(std::move(event)));
  return events;
}

nlohmann::json EditorSession::script_changed(const FileChange& change) {
  if (!change.exists) {
    scripts_.erase(change.path);
    script_pages_.erase(change.path), script_errors_.erase(change.path);
    return {{"event", "script_removed"}, {"file", change.path}};
  }
  auto script = reader_->read_script(change.path, script_host_);
  if (!script) {
    script_errors_[change.path] = relative(script.error().message);
    return {{"event", "script_error"},
            {"file", change.path},
            {"error", script.error().message},
            {"kept_previous", scripts_.count(change.path) > 0}};
  }
  auto program = std::optional<jit::Program>(std::move(script->program));
  // Pages whose bytes did not change keep their code: the runtime keys pages by their bytes.
  std::size_t changed = 0;
  auto old = scripts_.find(change.path);
  for (std::size_t p = 0; p < program->page_count(); ++p) {
    const auto now = program->page(p);
    const bool same = old != scripts_.end() && p < old->second.page_count() &&
                      std::equal(now.begin(), now.end(), old->second.page(p).begin());
    changed += same ? 0 : 1;
  }
  const auto t0 = Clock::now();
  const jit::JitStats before = jit_ ? jit_->stats() : jit::JitStats{};
  if (jit_) jit_->precompile(*program, jit::abi::JitMode::kChecked);
  const jit::JitStats after = jit_ ? jit_->stats() : jit::JitStats{};
  nlohmann::json event = {{"event", "script"},
                          {"file", change.path},
                          {"pages", program->page_count()},
                          {"changed_pages", changed},
                          {"compiled", after.compiled - before.compiled},
                          {"loaded", after.loaded - before.loaded},
                          {"compile_ms", ms_between(t0, Clock::now())}};
  scripts_[change.path] = std::move(*program);
  note_script(change.path, before);
  return event;
}

nlohmann::json EditorSession::texture_changed(const FileChange& change) {
  // A .tx stands for its source (foo.tx or foo.png.tx for foo.png), and so does the source's
  // settings sidecar (foo.png.json): the image is the one a material names.
  std::string source = change.path;
  if (const std::string suffix = ".json"; change.path.size() > suffix.size() && change.path.ends_with(suffix) &&
                                          textures_.count(change.path.substr(0, change.path.size() - suffix.size()))) {
    source = change.path.substr(0, change.path.size() - suffix.size());
  } else if (has_extension(change.path, {".tx"})) {
    for (const std::string& texture : textures_)
      if (fs::path(texture).replace_extension(".tx").generic_string() == change.path || texture + ".tx" == change.path)
        source = texture;
  }
  if (!textures_.count(source)) return nullptr;  // not a texture of the project's materials
  reader_->forget_sidecar(source);               // the next read of a material using it reads its settings again
  // The image may be the source converted to a .tx in the cache, or a .tx next to the source.
  std::size_t dropped = tiles_->invalidate(root_ / source);
  if (auto old = images_.find(source); old != images_.end()) dropped += tiles_->invalidate(old->second->path());
  const auto t0 = Clock::now();
  // Regenerates the .tx of a plain source and reads the preview again. A broken file keeps the
  // previous image (if there was one) and stays watched: its fix is the next event.
  if (auto loaded = load_texture(source); !loaded)
    return {{"event", "texture_error"},
            {"file", change.path},
            {"image", source},
            {"error", loaded.error().message},
            {"materials", materials_naming_texture(source)},
            {"tiles_dropped", dropped},
            {"kept_previous", images_.count(source) > 0}};
  const textures::TxInfo& info = images_.at(source)->info();
  nlohmann::json event = {
      {"event", "texture"},
      {"file", change.path},
      {"image", source},
      {"wrap", std::string(textures::wrap_mode_name(info.wrap_s)) + "," + textures::wrap_mode_name(info.wrap_t)},
      {"compression", info.compression},
      {"tiles_dropped", dropped},
      {"compile_ms", ms_between(t0, Clock::now())}};
  if (!info.color_space.empty()) event["color_space"] = info.color_space;
  const std::vector<std::string> users = materials_naming_texture(source);
  event["materials"] = users;
  send_previews(event, users);
  return event;
}

std::vector<std::string> EditorSession::materials_naming_texture(const std::string& texture) const {
  std::vector<std::string> users;
  for (const auto& [rel, state] : materials_)
    for (const auto& [slot, named] : state.material.textures)
      if (named == texture) {
        users.push_back(rel);
        break;
      }
  return users;
}

nlohmann::json EditorSession::status() const {
  const auto lib = library_->stats();
  const auto tiles = tiles_->stats();
  nlohmann::json jit = nullptr;
  if (jit_) {
    const auto s = jit_->stats();
    jit = {
        {"pages_hot", s.requested}, {"compiled", s.compiled}, {"loaded", s.loaded}, {"not_cacheable", s.not_cacheable}};
  }
  return {{"event", "status"},
          {"variants",
           {{"in_memory", library_->cache().count()},
            {"compiles", lib.compiles},
            {"disk_hits", lib.disk_hits},
            {"compile_errors", lib.compile_errors}}},
          {"jit", jit},
          {"tiles",
           {{"summary", tiles.summary()}, {"open_images", tiles.open_images}, {"peak_bytes", tiles.tiles.peak_bytes}}}};
}

// Messages name files the way the loaders were given them (the project as named on the command
// line, or absolute); people and tools get them relative to the project, like the "file" field.
std::string EditorSession::relative(std::string text) const {
  return relative_to_project(std::move(text), project_prefixes(root_));
}

nlohmann::json EditorSession::project_relative(nlohmann::json event) const {
  const std::vector<std::string> prefixes = project_prefixes(root_);
  const auto rewrite = [&](std::string text) { return relative_to_project(std::move(text), prefixes); };
  for (const char* key : {"error", "message"})
    if (event.contains(key) && event[key].is_string()) event[key] = rewrite(event[key].get<std::string>());
  for (const char* list : {"errors", "script_errors", "preview_errors"})
    if (event.contains(list) && event[list].is_array())
      for (auto& e : event[list])
        if (e.is_string()) e = rewrite(e.get<std::string>());
  return event;
}

}  // namespace kiln::editor
