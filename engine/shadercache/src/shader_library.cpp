#include "kiln/shadercache/shader_library.h"

#include "include_resolver.h"
#include "kiln/cache/hash.h"
#include "variant_blob.h"

namespace kiln::shadercache {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStageExtensions[] = {".vert", ".tesc", ".tese", ".geom", ".frag", ".comp"};

}  // namespace

ShaderLibrary::ShaderLibrary(ShaderLibraryOptions options)
    : options_(std::move(options)), cache_(options_.memory_budget_bytes) {
  for (const auto& dir : options_.include_dirs)
    include_dirs_.push_back(dir.is_absolute() ? dir : options_.root / dir);
  if (options_.store) {
    auto ns = options_.store->open_namespace("shaders", namespace_identity());
    if (ns) ns_ = *ns;  // without a namespace the persistent level is off; compiles still work
  }
}

std::vector<std::pair<std::string, std::string>> ShaderLibrary::namespace_identity() const {
  return {{"compiler", glslang_version()},
          {"spirv-cross", spirv_cross_version()},
          {"target", std::string(target_env_name(options_.target))},
          {"backend", std::string(backend_name(options_.backend))},
          {"options", "vulkan-rules;default-version=100;no-optimizer;keywords-as-define-1"},
          {"variant-format", std::to_string(kVariantBlobFormat)}};
}

fs::path ShaderLibrary::absolute(const std::string& rel) const { return (options_.root / rel).lexically_normal(); }

std::string ShaderLibrary::relative(const fs::path& file) const {
  const fs::path normal = file.lexically_normal();
  const fs::path rel = normal.lexically_relative(options_.root.lexically_normal());
  return rel.empty() || rel.string().rfind("..", 0) == 0 ? normal.string() : rel.string();
}

Result<std::shared_ptr<const ShaderProgram>> ShaderLibrary::program(const std::string& id) {
  {
    std::lock_guard lock(mu_);
    if (auto it = programs_.find(id); it != programs_.end()) return it->second;
  }
  auto made = std::make_shared<ShaderProgram>();
  ShaderProgram& p = *made;
  p.id = id;
  std::error_code ec;
  if (stage_from_path(id)) {
    if (fs::is_regular_file(absolute(id), ec)) p.stage_files.push_back(id);
  } else {
    for (const char* ext : kStageExtensions)
      if (fs::is_regular_file(absolute(id + ext), ec)) p.stage_files.push_back(id + ext);
  }
  if (p.stage_files.empty())
    return make_error("shader " + id + ": no stage file (" + absolute(id).string() +
                      "{.vert,.tesc,.tese,.geom,.frag,.comp})");
  std::vector<materials::ShaderDeclaration> stages;
  for (const auto& file : p.stage_files) {
    std::string source;
    if (!read_text_file(absolute(file), source)) return make_error(absolute(file).string() + ": cannot read");
    auto decl = materials::parse_shader_declaration(absolute(file).string(), source);
    if (!decl) return decl.error();
    stages.push_back(*decl);
  }
  p.declaration = materials::merge_declarations(stages);
  std::shared_ptr<const ShaderProgram> shared = std::move(made);
  std::lock_guard lock(mu_);
  programs_[id] = shared;
  return shared;
}

int ShaderLibrary::revision(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = revisions_.find(id);
  return it == revisions_.end() ? 1 : it->second;
}

materials::VariantKey ShaderLibrary::key(const std::string& id, const std::string& pass,
                                         const std::vector<std::string>& keywords) const {
  return materials::VariantKey::create(id, pass, keywords, revision(id));
}

Result<VariantCache::Handle> ShaderLibrary::variant(const std::string& id, const std::string& pass,
                                                    const std::vector<std::string>& keywords) {
  auto p = program(id);
  if (!p) return p.error();
  if (auto s = materials::check_variant_request(id, (*p)->declaration, pass, keywords); !s) return s.error();
  return cache_.get_or_compile(key(id, pass, keywords), [this](const materials::VariantKey& k) { return build(k); });
}

Result<CompiledVariant> ShaderLibrary::build(const materials::VariantKey& key) {
  auto p = program(key.shader);
  if (!p) return p.error();

  // The content key: every byte a compile may read, plus what it is asked for. Includes come from a
  // conservative scan (an include behind an #ifdef counts too).
  cache::Xxh3Stream content;
  content.update("kiln-variant|").update(key.pass).update("|").update(key.keywords).update("|");
  std::set<std::string> deps;
  bool complete = true;
  for (const auto& file : (*p)->stage_files) {
    std::string source;
    if (!read_text_file(absolute(file), source)) return make_error(absolute(file).string() + ": cannot read");
    content.update(file).update("\n").update(std::to_string(source.size())).update("\n").update(source);
    deps.insert(file);
    const IncludeScan scan = scan_includes(absolute(file), include_dirs_);
    complete = complete && scan.missing.empty();
    for (const auto& inc : scan.files) {
      std::string text;
      if (!read_text_file(inc, text)) complete = false;
      const std::string rel = relative(inc);
      content.update(rel).update("\n").update(std::to_string(text.size())).update("\n").update(text);
      deps.insert(rel);
    }
  }
  {
    std::lock_guard lock(mu_);
    dependencies_[key.shader].insert(deps.begin(), deps.end());
  }
  const cache::BlobKey blob_key{content.digest128()};

  if (ns_ && complete) {
    if (auto bytes = options_.store->get(*ns_, blob_key)) {
      if (auto decoded = decode_variant(*bytes)) {
        disk_hits_.fetch_add(1, std::memory_order_relaxed);
        return std::move(*decoded);
      }
      undecodable_.fetch_add(1, std::memory_order_relaxed);
    }
    disk_misses_.fetch_add(1, std::memory_order_relaxed);
  }
  auto compiled = compile(key, **p);
  if (!compiled) {
    compile_errors_.fetch_add(1, std::memory_order_relaxed);
    return compiled.error();
  }
  compiled->dependencies.assign(deps.begin(), deps.end());
  if (ns_ && complete) options_.store->put(*ns_, blob_key, encode_variant(*compiled));
  return compiled;
}

Result<CompiledVariant> ShaderLibrary::compile(const materials::VariantKey& key, const ShaderProgram& p) {
  compiles_.fetch_add(1, std::memory_order_relaxed);
  // Keywords and a declared pass become defines; a shader without them compiles with none, exactly
  // as glslangValidator would.
  std::vector<std::string> defines = key.keyword_list();
  if (p.declaration.declares_passes) defines.push_back(materials::pass_define(key.pass));
  CompiledVariant out;
  std::string errors;
  for (const auto& file : p.stage_files) {
    GlslInput in;
    in.file = absolute(file);
    if (!read_text_file(in.file, in.source)) return make_error(in.file.string() + ": cannot read");
    in.stage = *stage_from_path(file);
    in.defines = defines;
    in.include_dirs = include_dirs_;
    in.target = options_.target;
    auto spirv = compile_glsl(in);
    if (!spirv) {
      errors += (errors.empty() ? "" : "\n") + spirv.error().message;
      continue;
    }
    auto reflection = reflect_spirv(spirv->spirv);
    if (!reflection) return make_error(in.file.string() + ": " + reflection.error().message);
    auto source = cross_compile(spirv->spirv, options_.backend);
    if (!source) return make_error(in.file.string() + ": " + source.error().message);
    out.stages.push_back({std::string(stage_name(in.stage)), file, std::move(spirv->spirv), reflection->dump(),
                          std::move(*source)});
  }
  if (!errors.empty()) return make_error(errors);
  return out;
}

std::vector<std::string> ShaderLibrary::file_changed(const fs::path& file) {
  const std::string rel = relative(file.is_absolute() ? file : options_.root / file);
  std::vector<std::pair<std::string, int>> affected;
  {
    std::lock_guard lock(mu_);
    std::set<std::string> ids;
    for (const auto& [id, deps] : dependencies_)
      if (deps.count(rel)) ids.insert(id);
    for (const auto& [id, p] : programs_)
      for (const auto& f : p->stage_files)
        if (f == rel) ids.insert(id);
    for (const auto& id : ids) {
      programs_.erase(id);  // its pragmas may have changed
      int& r = revisions_.try_emplace(id, 1).first->second;
      affected.emplace_back(id, ++r);
    }
  }
  std::vector<std::string> out;
  for (const auto& [id, rev] : affected) {
    cache_.invalidate_shader(id, rev);
    out.push_back(id);
  }
  return out;
}

ShaderLibraryStats ShaderLibrary::stats() const {
  return {disk_hits_.load(), disk_misses_.load(), compiles_.load(), compile_errors_.load(), undecodable_.load()};
}

}  // namespace kiln::shadercache
