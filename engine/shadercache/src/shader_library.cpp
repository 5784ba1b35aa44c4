#include "kiln/shadercache/shader_library.h"

#include "include_resolver.h"
#include "kiln/core/input_limits.h"
#include "kiln/core/project_paths.h"
#include "kiln/cache/hash.h"
#include "kiln/materials/variant_rules.h"
#include "variant_blob.h"

namespace kiln::shadercache {
namespace fs = std::filesystem;
namespace {

// The stage files an id may have, whether they exist or not: creating one changes the shader. In
// stage order, each stage's GLSL file before its HLSL one.
std::vector<std::string> stage_candidates(const std::string& id) {
  if (stage_from_path(id)) return {id};
  std::vector<std::string> out;
  for (std::size_t s = 0; s < runtime::kShaderStageCount; ++s) {
    const std::string file = id + "." + std::string(stage_name(runtime::ShaderStage(s)));
    out.push_back(file);
    out.push_back(file + ".hlsl");
  }
  return out;
}

}  // namespace

// Everything a shader's variants read from disk, read once per revision of the shader: the
// compile sees exactly the bytes the key hashes, and a cook of thousands of variants reads and
// hashes each file once rather than once per variant.
struct ShaderLibrary::Sources {
  std::vector<std::string> stage_files;  // relative
  std::vector<std::string> entries;      // each stage file's entry point; empty for GLSL
  SourceSnapshot snapshot;
  std::set<std::string> dependencies;  // relative: read, probed, or a possible stage file
  bool declares_passes = false;        // by the snapshot's own pragmas: a variant defines its pass
  // What the content key hashes of the shader's files, whatever the variant: the stage names and
  // entries, then the digest of every byte of every file the compile may read.
  std::string stages_text;
  cache::Hash128 files_digest;
};

// One variant's build: the shader's sources and the variant's defines.
struct ShaderLibrary::Build {
  materials::VariantKey key;
  std::shared_ptr<const Sources> sources;
  std::vector<std::string> defines;
};

ShaderLibrary::ShaderLibrary(ShaderLibraryOptions options)
    : options_(std::move(options)),
      cache_(options_.memory_budget_bytes),
      compiler_(std::make_unique<IsolatedCompiler>(options_.isolation)) {
  std::error_code ec;
  const fs::path root = fs::absolute(options_.root, ec);
  options_.root = (ec ? options_.root : root).lexically_normal();
  for (const auto& dir : options_.include_dirs)
    include_dirs_.push_back((dir.is_absolute() ? dir : options_.root / dir).lexically_normal());
  std::vector<fs::path> roots{options_.root};
  roots.insert(roots.end(), include_dirs_.begin(), include_dirs_.end());
  roots_ = canonical_roots(roots);
  if (options_.store) {
    auto ns = options_.store->open_namespace("shaders", build_identity(), settings_identity());
    if (ns) ns_ = *ns;  // without a namespace the persistent level is off; compiles still work
  }
}

cache::Identity ShaderLibrary::build_identity() {
  return {{"compiler", glslang_version()},
          {"spirv-cross", spirv_cross_version()},
          // The optimizer runs as in glslangValidator: it changes no GLSL stage, and legalises HLSL ones.
          {"options", "vulkan-rules;default-version=100;optimizer-legalises-hlsl;keywords-as-define-1"},
          // A change to what a backend writes for some stage (HLSL mesh shaders at shader model 6.5,
          // no MSL for stages it has no function for) must not serve what an older build wrote.
          {"backend-options",
           "glsl=450;essl=310;hlsl=sm51-spaces,mesh-sm65,no-task-rt;msl=default,no-geom-task-mesh-rt;"
           "vulkan-semantics=off;bindings-per-class"},
          {"reflection-format", std::to_string(runtime::kReflectionFormat)},
          {"variant-format", std::to_string(kVariantBlobFormat)}};
}

cache::Identity ShaderLibrary::settings_identity() const {
  return {{"target", std::string(target_env_name(options_.target))},
          {"backend", std::string(runtime::backend_name(options_.backend))}};
}

std::string ShaderLibrary::normal_id(const std::string& id) {
  // Most ids are already normal ("shaders/lit"): checking that costs a scan, normalising a path
  // costs allocations on every variant() hit.
  return plain_relative(id) ? id : fs::path(id).lexically_normal().generic_string();
}

fs::path ShaderLibrary::absolute(const std::string& rel) const { return normal_join(options_.root.native(), rel); }

std::string ShaderLibrary::relative(const fs::path& file) const {
  const fs::path full = (file.is_absolute() ? file : options_.root / file).lexically_normal();
  const fs::path rel = full.lexically_relative(options_.root);
  const bool inside = !rel.empty() && *rel.begin() != "..";
  return inside ? rel.generic_string() : full.generic_string();
}

Result<std::shared_ptr<const ShaderProgram>> ShaderLibrary::program(const std::string& raw_id) {
  const std::string id = normal_id(raw_id);
  std::uint64_t generation;
  {
    std::lock_guard lock(mu_);
    if (auto it = programs_.find(id); it != programs_.end()) return it->second;
    generation = generation_;
  }
  auto made = std::make_shared<ShaderProgram>();
  made->id = id;
  auto files = present_stage_files(id);
  if (!files) return files.error();
  made->stage_files = std::move(*files);
  if (made->stage_files.empty())
    return make_error("shader " + id + ": no stage file (" + absolute(id).string() +
                      (stage_from_path(id) ? "" : runtime::stage_extensions() + ", each also as .hlsl") + ")");
  KILN_TRY(stages_inside(id, made->stage_files));
  std::vector<materials::ShaderDeclaration> stages;
  for (const auto& file : made->stage_files) {
    auto source = read_shader_file(absolute(file));
    if (!source) return make_error(source.error().message);
    auto decl = materials::parse_shader_declaration(absolute(file).string(), *source);
    if (!decl) return decl.error();
    stages.push_back(*decl);
  }
  made->declaration = materials::merge_declarations(stages);
  KILN_TRY(defines_leave_keywords(id, made->declaration));
  std::shared_ptr<const ShaderProgram> shared = std::move(made);
  std::lock_guard lock(mu_);
  if (generation == generation_) programs_[id] = shared;  // else a file changed meanwhile: read again next time
  return shared;
}

// A define applies to every variant: one naming a keyword would turn it on where the material did
// not ask for it, past `#pragma kiln invalid`, under a variant key that does not say so.
Status ShaderLibrary::defines_leave_keywords(const std::string& id,
                                             const materials::ShaderDeclaration& declaration) const {
  for (const auto& define : options_.defines) {
    const std::string name = define.substr(0, define.find('='));
    if (declaration.keywords.count(name))
      return make_error("shader " + id + ": the define " + name + " (-D, cook.defines) names a keyword the shader " +
                        "declares: choose keywords per variant (--keywords, a material's \"keywords\"), not for " +
                        "every variant");
  }
  return {};
}

Result<std::vector<std::string>> ShaderLibrary::present_stage_files(const std::string& id) const {
  std::vector<std::string> out;
  for (const auto& candidate : stage_candidates(id)) {
    if (!input_present(absolute(candidate))) continue;
    if (!out.empty() && stage_from_path(out.back()) == stage_from_path(candidate))
      return make_error("shader " + id + ": two " + std::string(stage_name(*stage_from_path(candidate))) + " stages, " +
                        out.back() + " and " + candidate + " (keep one: GLSL or HLSL)");
    out.push_back(candidate);
  }
  return out;
}

Status ShaderLibrary::stages_inside(const std::string& id, const std::vector<std::string>& stage_files) const {
  for (const auto& file : stage_files) {
    fs::path resolved;
    if (!resolves_inside(absolute(file), roots_, &resolved))
      return make_error("shader " + id + ": " + absolute(file).string() +
                        " leads outside the project and its include directories (to " + resolved.string() + ")");
  }
  return {};
}

int ShaderLibrary::revision(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = revisions_.find(normal_id(id));
  return it == revisions_.end() ? 1 : it->second;
}

materials::VariantKey ShaderLibrary::key(const std::string& id, const std::string& pass,
                                         const std::vector<std::string>& keywords) const {
  return materials::VariantKey::create(normal_id(id), pass, keywords, revision(id));
}

Result<VariantCache::Handle> ShaderLibrary::variant(const std::string& id, const std::string& pass,
                                                    const std::vector<std::string>& keywords) {
  auto p = program(id);
  if (!p) return p.error();
  KILN_TRY(materials::check_variant_validity((*p)->id, (*p)->declaration, pass, keywords));
  return cache_.get_or_compile(key(id, pass, keywords), [this](const materials::VariantKey& k) { return build(k); });
}

Result<VariantHandle> ShaderLibrary::resolve(const std::string& id, const std::string& pass,
                                             std::vector<std::string> keywords) {
  VariantHandle handle{id, pass, std::move(keywords), nullptr, 0};
  auto resolved = refresh(handle);
  if (!resolved) return resolved.error();
  return handle;
}

Result<const CompiledVariant*> ShaderLibrary::refresh(VariantHandle& handle) {
  // The generation before the lookup: a change that lands meanwhile makes the next check look again.
  const std::uint64_t generation = variants_generation_.load(std::memory_order_acquire);
  auto v = variant(handle.id, handle.pass, handle.keywords);
  if (!v) return v.error();
  handle.variant = std::move(*v);
  handle.generation = generation;
  return handle.variant.get();
}

Result<std::shared_ptr<const ShaderLibrary::Sources>> ShaderLibrary::sources(const std::string& id) {
  std::uint64_t generation;
  std::shared_ptr<const ShaderProgram> program;
  {
    std::lock_guard lock(mu_);
    if (auto it = sources_.find(id); it != sources_.end()) return it->second;
    generation = generation_;
    if (auto it = programs_.find(id); it != programs_.end()) program = it->second;
  }
  auto made = std::make_shared<Sources>();
  for (const auto& candidate : stage_candidates(id)) made->dependencies.insert(candidate);
  if (program) {
    // Found and checked inside by program() in this generation: a change to any of the shader's
    // files drops both entries at once (file_changed).
    made->stage_files = program->stage_files;
  } else {
    auto files = present_stage_files(id);
    if (!files) return files.error();
    made->stage_files = std::move(*files);
    if (made->stage_files.empty()) return make_error("shader " + id + ": no stage file");
    KILN_TRY(stages_inside(id, made->stage_files));
  }

  std::vector<materials::ShaderDeclaration> declarations;
  for (const auto& file : made->stage_files) {
    if (!snapshot_tree(absolute(file), {include_dirs_, roots_}, made->snapshot))
      return make_error(made->snapshot.unreadable);
    auto decl = materials::parse_shader_declaration(absolute(file).string(), made->snapshot.files.at(absolute(file)));
    if (!decl) return decl.error();
    const bool hlsl = stage_source_from_path(file)->language == SourceLanguage::kHlsl;
    if (!hlsl && !decl->entry.empty())
      return make_error(absolute(file).string() + ": error: '#pragma kiln entry' is for HLSL stages: a GLSL " +
                        "stage starts at main");
    if (!hlsl && !options_.entry.empty())
      return make_error(absolute(file).string() + ": error: an entry point (--entry " + options_.entry +
                        ") is for HLSL stages: a GLSL stage starts at main");
    made->entries.push_back(!hlsl                     ? ""
                            : !options_.entry.empty() ? options_.entry
                            : decl->entry.empty()     ? "main"
                                                      : decl->entry);
    declarations.push_back(*decl);
  }
  // The snapshot's own pragmas decide the defines, so they always match the hashed text.
  const auto declaration = materials::merge_declarations(declarations);
  KILN_TRY(defines_leave_keywords(id, declaration));
  made->declares_passes = declaration.declares_passes;
  for (const auto& [path, text] : made->snapshot.files) made->dependencies.insert(relative(path));
  for (const auto& path : made->snapshot.probed) made->dependencies.insert(relative(path));
  // A stage file's name says its language; an HLSL stage's entry point is part of what it compiles to.
  for (std::size_t i = 0; i < made->stage_files.size(); ++i) {
    made->stages_text += "stage:" + made->stage_files[i] + "\n";
    if (!made->entries[i].empty()) made->stages_text += "entry:" + made->entries[i] + "\n";
  }
  cache::Xxh3Stream contents;
  for (const auto& [path, text] : made->snapshot.files)
    contents.update("file:")
        .update(relative(path))
        .update("\n")
        .update(std::to_string(text.size()))
        .update("\n")
        .update(text);
  made->files_digest = contents.digest128();

  std::shared_ptr<const Sources> shared = std::move(made);
  std::lock_guard lock(mu_);
  dependencies_[id] = shared->dependencies;              // replaced: an include no longer used stops counting
  if (generation == generation_) sources_[id] = shared;  // else a file changed meanwhile: read again next time
  return shared;
}

std::vector<std::string> ShaderLibrary::defines_of(const Sources& sources, const materials::VariantKey& key) const {
  std::vector<std::string> defines = options_.defines;
  for (auto& k : key.keyword_list()) defines.push_back(std::move(k));
  if (sources.declares_passes) defines.push_back(materials::pass_define(key.pass));
  return defines;
}

// The content key: the stages, the defines, and every byte of every file the compile may read.
cache::BlobKey ShaderLibrary::content_key_of(const Sources& sources, const std::vector<std::string>& defines) {
  cache::Xxh3Stream content;
  content.update("kiln-variant|").update(sources.stages_text);
  for (const auto& d : defines) content.update("define:").update(d).update("\n");
  content.update("files:").update(sources.files_digest.hex());
  return cache::BlobKey{content.digest128()};
}

Result<std::optional<cache::BlobKey>> ShaderLibrary::content_key(const materials::VariantKey& key) {
  auto read = sources(key.shader);
  if (!read) return read.error();
  if (!(*read)->snapshot.missing.empty()) return std::optional<cache::BlobKey>();
  return std::optional<cache::BlobKey>(content_key_of(**read, defines_of(**read, key)));
}

Result<CompiledVariant> ShaderLibrary::build(const materials::VariantKey& key) {
  Build b;
  b.key = key;
  auto read = sources(key.shader);
  if (!read) return read.error();
  b.sources = std::move(*read);
  const Sources& sources = *b.sources;
  b.defines = defines_of(sources, key);
  const cache::BlobKey blob_key = content_key_of(sources, b.defines);
  bool storable = ns_.has_value() && sources.snapshot.missing.empty();

  if (storable && !options_.refresh_store) {
    if (auto bytes = options_.store->get(*ns_, blob_key)) {
      if (auto decoded = decode_variant(*bytes)) {
        disk_hits_.fetch_add(1, std::memory_order_relaxed);
        decoded->dependencies.assign(sources.dependencies.begin(), sources.dependencies.end());
        return std::move(*decoded);
      }
      undecodable_.fetch_add(1, std::memory_order_relaxed);
    }
    disk_misses_.fetch_add(1, std::memory_order_relaxed);
  }
  bool outside = false;
  auto compiled = compile(b, outside);
  if (!compiled) {
    compile_errors_.fetch_add(1, std::memory_order_relaxed);
    return compiled.error();
  }
  compiled->dependencies.assign(sources.dependencies.begin(), sources.dependencies.end());
  if (storable && !outside) options_.store->put(*ns_, blob_key, encode_variant(*compiled));
  return compiled;
}

Result<CompiledVariant> ShaderLibrary::compile(const Build& b, bool& outside_snapshot) {
  compiles_.fetch_add(1, std::memory_order_relaxed);
  // Every stage to SPIR-V and its reflection first: the backends' bindings are numbered over the
  // whole variant, so that its stages agree.
  struct StageBuild {
    std::string file;
    Stage stage;
    std::vector<std::uint32_t> spirv;
    runtime::StageReflection reflection;
    std::string warnings;
  };
  std::vector<StageBuild> stages;
  std::string errors;
  const Sources& sources = *b.sources;
  for (std::size_t i = 0; i < sources.stage_files.size(); ++i) {
    const std::string& file = sources.stage_files[i];
    GlslInput in;
    in.file = absolute(file);
    in.source = sources.snapshot.files.at(in.file);
    const auto source = *stage_source_from_path(file);  // stage_candidates made every file a stage file
    in.stage = source.stage;
    in.language = source.language;
    in.entry = sources.entries[i];
    in.defines = b.defines;
    in.include_dirs = include_dirs_;
    in.include_roots = roots_;
    in.target = options_.target;
    in.snapshot = &sources.snapshot.files;
    auto compiled = compiler_->compile_and_reflect(in);
    if (!compiled) {
      errors += (errors.empty() ? "" : "\n") + compiled.error().message;
      continue;
    }
    outside_snapshot = outside_snapshot || compiled->glsl.read_outside_snapshot;
    std::string warnings = root_relative_log(compiled->glsl.warnings);
    if (!compiled->reflection) {
      // The SPIR-V stands: glslang accepted the shader. What needs the reflection (a pipeline layout,
      // material checks, the other backends) says so where it is asked for; the warning says it now.
      const std::string stage = std::string(stage_name(in.stage));
      if (options_.backend != Backend::kSpirv)
        return make_error(in.file.string() + ": error: " + stage + " stage: cannot be translated to " +
                          std::string(runtime::backend_name(options_.backend)) + ": " + compiled->reflection_error);
      compiled->reflection.emplace().unavailable = compiled->reflection_error;
      warnings += root_relative_log(
          in.file.string() + ": warning: " + stage +
          " stage: not reflected, so no pipeline layout or material check can use it: " + compiled->reflection_error);
    }
    stages.push_back(
        {file, in.stage, std::move(compiled->glsl.spirv), std::move(*compiled->reflection), std::move(warnings)});
  }
  if (!errors.empty()) return make_error(errors);
  std::vector<runtime::StageReflection> reflections;
  for (const auto& s : stages) reflections.push_back(s.reflection);
  const BindingMap bindings = map_bindings(reflections, options_.backend);
  CompiledVariant out;
  for (auto& s : stages) {
    Result<std::string> source = std::string();
    if (options_.backend != Backend::kSpirv) {
      source = compiler_->translate({.file = absolute(s.file),
                                     .stage = s.stage,
                                     .spirv = s.spirv,
                                     .backend = options_.backend,
                                     .bindings = bindings});
      if (!source) return source.error();
    }
    record_backend_bindings(s.reflection, bindings, options_.backend);
    std::string reflection_text = runtime::encode_reflection(s.reflection);
    out.stages.push_back({std::string(stage_name(s.stage)), s.file, std::move(s.spirv), std::move(s.reflection),
                          std::move(*source), std::move(s.warnings), std::move(reflection_text)});
  }
  return out;
}

std::string ShaderLibrary::root_relative_log(const std::string& log) const {
  const std::string prefix = options_.root.generic_string() + "/";
  std::string out;
  for (std::size_t start = 0; start < log.size();) {
    const std::size_t end = std::min(log.find('\n', start), log.size());
    const std::size_t skip = log.compare(start, prefix.size(), prefix) == 0 ? prefix.size() : 0;
    out.append(log, start + skip, end - start - skip).append("\n");
    start = end + 1;
  }
  return out;
}

std::vector<std::string> ShaderLibrary::file_changed(const fs::path& file) {
  const std::string rel = relative(file);
  std::lock_guard serial(invalidate_mu_);
  std::vector<std::pair<std::string, int>> affected;
  {
    std::lock_guard lock(mu_);
    ++generation_;
    std::set<std::string> ids;
    for (const auto& [id, deps] : dependencies_)
      if (deps.count(rel)) ids.insert(id);
    for (const auto& [id, p] : programs_)
      for (const auto& candidate : stage_candidates(id))
        if (candidate == rel) ids.insert(id);
    for (const auto& id : ids) {
      programs_.erase(id);  // its pragmas may have changed
      sources_.erase(id);
      int& r = revisions_.try_emplace(id, 1).first->second;
      affected.emplace_back(id, ++r);
    }
  }
  std::vector<std::string> out;
  for (const auto& [id, rev] : affected) {
    cache_.invalidate_shader(id, rev);
    out.push_back(id);
  }
  // After the revisions and the cache changed: a handle that sees the new generation resolves to
  // the new revision.
  if (!affected.empty()) variants_generation_.fetch_add(1, std::memory_order_acq_rel);
  return out;
}

ShaderLibraryStats ShaderLibrary::stats() const {
  return {disk_hits_.load(), disk_misses_.load(), compiles_.load(), compile_errors_.load(), undecodable_.load()};
}

}  // namespace kiln::shadercache
