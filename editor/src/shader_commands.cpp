#include "shader_commands.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kiln/cache/blob_store.h"
#include "kiln/cache/hash.h"
#include "kiln/core/atomic_output.h"
#include "kiln/core/project_paths.h"
#include "kiln/core/text.h"
#include "persistent_caches.h"
#include "kiln/shadercache/shader_library.h"

namespace kiln::cli {
namespace {

using namespace kiln::shadercache;

int fail(const std::string& message, int code = kExitFailed) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return code;
}

// Where `-o out` puts each stage: `out` itself for a one-stage shader; otherwise the stage before the
// extension (`lit.spv` -> `lit.vert.spv`, `lit.frag.spv`); into a directory (one that exists, or
// `out/`, made if missing) as `<shader>.<stage>.<ext>`.
std::filesystem::path stage_output(const std::string& out, const std::string& shader, const CompiledStage& stage,
                                   std::size_t stages, Backend backend) {
  namespace fs = std::filesystem;
  const fs::path path(out);
  std::error_code ec;
  if (out.back() == '/' || fs::is_directory(path, ec)) {
    const std::string extension(backend == Backend::kSpirv ? "spv" : runtime::backend_name(backend));
    return path / (runtime::shader_of_stage_file(shader).filename().string() + "." + stage.stage + "." + extension);
  }
  if (stages == 1) return path;
  return path.parent_path() / (path.stem().string() + "." + stage.stage + path.extension().string());
}

void print_members(const std::vector<runtime::BlockMember>& members) {
  for (const auto& m : members)
    std::printf("    member offset=%u size=%u %s %s\n", m.offset, m.size, m.type.c_str(), m.name.c_str());
}

void print_reflection(const std::string& file, const CompiledStage& stage) {
  const runtime::StageReflection& r = stage.reflection;
  std::printf("%s (%s) entry %s\n", file.c_str(), stage.stage.c_str(), r.entry_point.c_str());
  for (const auto& b : r.bindings) {
    std::printf("  binding set=%u binding=%u %s %s\n", b.set, b.binding,
                std::string(runtime::descriptor_kind_name(b.kind)).c_str(), b.name.c_str());
    print_members(b.members);
  }
  for (const auto& p : r.push_constants) {
    std::printf("  push_constant %s size=%u\n", p.name.c_str(), p.size);
    print_members(p.members);
  }
  for (const auto& [dir, vars] : {std::pair{"inputs", &r.inputs}, std::pair{"outputs", &r.outputs}})
    for (const auto& v : *vars)
      std::printf("  %s location=%u %s %s%s\n", dir, v.location, v.type.c_str(), v.name.c_str(),
                  v.per_primitive ? " per_primitive" : "");
  for (const auto& c : r.specialization_constants)
    std::printf("  specialization_constant id=%u %s\n", c.id, c.name.c_str());
  if (r.local_size) std::printf("  local_size %u %u %u\n", (*r.local_size)[0], (*r.local_size)[1], (*r.local_size)[2]);
  if (r.mesh_output)
    std::printf("  mesh_output %s max_vertices=%u max_primitives=%u\n", r.mesh_output->primitive.c_str(),
                r.mesh_output->max_vertices, r.mesh_output->max_primitives);
  if (r.task_payload) {
    std::printf("  task_payload %s %s size=%u\n", r.task_payload->type.c_str(), r.task_payload->name.c_str(),
                r.task_payload->size);
    print_members(r.task_payload->members);
  }
  for (const auto& v : r.ray_variables)
    std::printf("  %s %s %s size=%u\n", std::string(runtime::ray_variable_kind_name(v.kind)).c_str(), v.type.c_str(),
                v.name.c_str(), v.size);
  if (r.shader_record) {
    std::printf("  shader_record %s size=%u\n", r.shader_record->name.c_str(), r.shader_record->size);
    print_members(r.shader_record->members);
  }
}

// Where a shader's root is: `given` (--root), else the nearest directory above the file that holds a
// project (kiln.json or materials/), else the file's own directory. Returns the canonical root and
// the shader's id under it.
Result<std::pair<std::filesystem::path, std::string>> locate_shader(const std::string& file, const std::string& given) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path full = fs::weakly_canonical(fs::absolute(file, ec), ec);
  if (ec) return make_error(file + ": " + ec.message());
  fs::path root;
  if (!given.empty()) {
    root = fs::weakly_canonical(fs::absolute(given, ec), ec);
  } else {
    for (fs::path dir = full.parent_path(); root.empty(); dir = dir.parent_path()) {
      if (fs::exists(dir / "kiln.json", ec) || fs::is_directory(dir / "materials", ec)) root = dir;
      if (dir == dir.root_path()) break;
    }
    if (root.empty()) root = full.parent_path();
  }
  const fs::path id = full.lexically_relative(root);
  if (id.empty() || *id.begin() == "..")
    return make_error(file + " is outside the root " + root.string() + " (--root)");
  return std::pair{root, id.generic_string()};
}

// A compiler's message with the paths under the working directory shown relative to it, as the
// warnings are and as a cook shows them relative to its project ("shaders/lit.frag:12: error: ...").
std::string as_seen_from_here(const std::string& message) {
  std::error_code ec;
  const std::string here = std::filesystem::weakly_canonical(std::filesystem::current_path(ec), ec).string() + "/";
  if (ec || here == "/") return message;
  std::string out;
  std::size_t start = 0;
  while (start < message.size()) {
    const std::size_t end = std::min(message.find('\n', start), message.size());
    std::string_view line(message.data() + start, end - start);
    if (line.substr(0, here.size()) == here) line.remove_prefix(here.size());
    out.append(line).append(end < message.size() ? "\n" : "");
    start = end + 1;
  }
  return out;
}

// The compiler's warnings on standard error, with paths as the user sees them: relative to the
// working directory when the root is under it.
void print_warnings(const std::vector<CompiledStage>& stages, const std::filesystem::path& root) {
  std::error_code ec;
  const std::filesystem::path here = std::filesystem::current_path(ec);
  std::filesystem::path shown = root.lexically_relative(here);
  if (ec || shown.empty() || *shown.begin() == "..") shown = root;
  const std::string prefix = shown == "." ? "" : shown.generic_string() + "/";
  for (const auto& stage : stages) {
    std::istringstream lines(stage.warnings);
    for (std::string line; std::getline(lines, line);)
      std::fprintf(stderr, "%s%s\n", !line.empty() && line.front() == '/' ? "" : prefix.c_str(), line.c_str());
  }
}
}  // namespace

int run_shader_command(const Args& args, const LoadedConfig& loaded) {
  const std::string verb = args.words.size() > 1 ? args.words[1] : "";
  if ((verb != "compile" && verb != "reflect") || args.words.size() != 3)
    return fail(
        "usage: kiln shader compile|reflect <file> [--keywords A,B] [--pass P] [-D NAME[=VALUE]]... "
        "[--target-env vulkan1.X] [--backend spirv|glsl|essl|hlsl|msl] [--entry NAME] [-I dir]... [--root DIR] "
        "[-o out]",
        kExitUsage);
  if (auto s = args.check_options(
          {"--keywords", "--pass", "--target-env", "--backend", "--entry", "-I", "-D", "-o", "--root"});
      !s)
    return fail("kiln shader: " + s.error().message, kExitUsage);
  const auto target = parse_target_env(args.option("--target-env", "vulkan1.0"));
  if (!target) return fail("kiln shader: --target-env must be one of " + runtime::target_env_names(), kExitUsage);
  const auto backend = runtime::backend_named(args.option("--backend", "spirv"));
  if (!backend) return fail("kiln shader: --backend must be one of " + runtime::backend_names(), kExitUsage);

  const std::unique_ptr<cache::BlobStore> store =
      loaded.config.shader_disk_cache
          ? open_cache_store(loaded.config, "kiln shader", open_remote_level(loaded.config, "kiln shader"))
          : nullptr;
  // The shader's id is its path under the root, so its cache keys are the same from every working
  // directory. Includes may reach only the root and the -I directories.
  const std::string file = std::filesystem::path(args.words[2]).lexically_normal().string();
  auto located = locate_shader(file, args.option("--root"));
  if (!located) return fail("kiln shader: " + located.error().message);
  const auto& [root, id] = *located;
  ShaderLibraryOptions options;
  options.root = root;
  std::error_code absolute_ec;
  for (const auto& dir : args.option_values("-I"))
    options.include_dirs.push_back(std::filesystem::absolute(dir, absolute_ec));
  options.defines = args.option_values("-D");  // NAME or NAME=VALUE, as glslangValidator takes them
  options.target = *target;
  options.backend = *backend;
  options.store = store.get();
  options.isolation = shadercache::compile_isolation(loaded.config);
  options.entry = args.option("--entry");  // HLSL: over the stage's #pragma kiln entry
  ShaderLibrary library(options);

  auto program = library.program(id);
  if (!program) return fail(as_seen_from_here(program.error().message));
  const std::string pass = args.option("--pass", (*program)->declaration.pass_order.front());
  const auto keywords = split_nonempty(args.option("--keywords"), ',');
  const auto start = std::chrono::steady_clock::now();
  auto variant = library.variant(id, pass, keywords);
  if (!variant) return fail(as_seen_from_here(variant.error().message));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const std::vector<CompiledStage>& stages = (*variant)->stages;
  const auto key = library.key(id, pass, keywords);
  // The digest a user quotes names this output: the variant, and the -D defines compiled into it.
  std::string digest = key.digest(), defines_shown;
  if (!options.defines.empty() || !options.entry.empty()) {
    std::string identity = key.shader + "|" + key.pass + "|" + key.keywords + "|" + std::to_string(key.source_revision);
    for (const auto& d : options.defines)
      identity += "|define:" + d, defines_shown += (defines_shown.empty() ? "" : ",") + d;
    if (!options.entry.empty()) identity += "|entry:" + options.entry;
    digest = cache::sha256_hex(identity).substr(0, 12);
  }
  print_warnings(stages, root);

  if (verb == "reflect") {
    for (const auto& stage : stages)
      if (!stage.reflection.unavailable.empty())
        return fail(as_seen_from_here((root / stage.file).string() + ": error: " + stage.stage +
                                      " stage: " + stage.reflection.unavailable));
    nlohmann::json out = {{"file", file}, {"pass", pass}, {"stages", nlohmann::json::array()}};
    for (const auto& stage : stages) {
      auto reflection = nlohmann::json::parse(runtime::encode_reflection(stage.reflection));
      reflection["stage"] = stage.stage;
      out["stages"].push_back(std::move(reflection));
    }
    // -o: the JSON into a file, as spirv-cross --reflect --output writes it.
    if (const std::string path = args.option("-o"); !path.empty()) {
      const std::string text = out.dump(2) + "\n";
      if (Status w = write_file_atomically(path, std::as_bytes(std::span(text.data(), text.size()))); !w)
        return fail("kiln shader: " + w.error().message);
      std::printf("%s: reflection of %zu stage%s written to %s\n", file.c_str(), stages.size(),
                  stages.size() == 1 ? "" : "s", path.c_str());
      return kExitOk;
    }
    if (args.json) {
      std::printf("%s\n", out.dump(2).c_str());
      return kExitOk;
    }
    for (const auto& stage : stages) print_reflection(file, stage);
    return kExitOk;
  }

  std::vector<std::string> written;
  if (const std::string out = args.option("-o"); !out.empty()) {
    std::error_code ec;
    if (out.back() == '/') std::filesystem::create_directories(out, ec);  // made when named as a directory
    for (const auto& stage : stages) {
      const auto path = stage_output(out, file, stage, stages.size(), *backend);
      std::ofstream f(path, std::ios::binary | std::ios::trunc);
      if (*backend == Backend::kSpirv)
        f.write(reinterpret_cast<const char*>(stage.spirv.data()),
                static_cast<std::streamsize>(stage.spirv.size() * 4));
      else
        f << stage.backend_source;
      if (!f) return fail("kiln shader: cannot write " + path.string());
      written.push_back(path.string());
    }
  }
  std::size_t spirv_bytes = 0;
  for (const auto& stage : stages) spirv_bytes += stage.spirv.size() * 4;
  const auto stats = library.stats();
  const char* how = stats.compiles ? "compiled" : "disk hit";
  if (args.json) {
    nlohmann::json j = {{"file", file},
                        {"pass", pass},
                        {"keywords", key.keywords},
                        {"defines", options.defines},
                        {"digest", digest},
                        {"result", how},
                        {"spirv_bytes", spirv_bytes},
                        {"ms", ms},
                        {"stages", nlohmann::json::array()},
                        {"output", written.empty() ? "" : written.front()},
                        {"outputs", written}};
    for (const auto& stage : stages) j["stages"].push_back(stage.stage);
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::string outputs;
    for (const auto& w : written) outputs += (outputs.empty() ? " -> " : ", ") + w;
    std::printf("%s %s pass=%s keywords=%s%s%s digest=%s: %zu stages, %zu bytes of SPIR-V, %.1f ms%s\n", how,
                file.c_str(), pass.c_str(), key.keywords.empty() ? "-" : key.keywords.c_str(),
                defines_shown.empty() ? "" : " defines=", defines_shown.c_str(), digest.c_str(), stages.size(),
                spirv_bytes, ms, outputs.c_str());
  }
  if (store) store->flush();
  return kExitOk;
}

int run_probe_command(const Args& args) {
  const std::string what = args.words.size() > 1 ? args.words[1] : "";
  if (what != "variants") return fail("usage: kiln probe variants", kExitUsage);
  using materials::VariantKey;
  int passed = 0, failed = 0;
  auto check = [&](const char* name, bool ok) {
    std::printf("%s %s\n", ok ? "PASS" : "FAIL", name);
    (ok ? passed : failed)++;
  };
  // The reference compiler of the regression checks: the value is made from the key's digest; the cache decides when it runs.
  auto compiler = [](const VariantKey& k) -> Result<CompiledVariant> {
    CompiledVariant v;
    v.stages.push_back({"frag", k.digest(), {}, {}, ""});
    return v;
  };
  {
    auto a = VariantKey::create("Lit", "Forward", {"FOG", "SKIN"}, 7);
    auto b = VariantKey::create("Lit", "Forward", {"SKIN", "FOG", "FOG"}, 7);
    check("keyword_order_is_canonical", a == b && a.digest() == b.digest());
  }
  {
    auto a = VariantKey::create("Lit", "Forward", {"FOG"}, 7);
    auto b = VariantKey::create("Lit", "Shadow", {"FOG"}, 7);
    check("pass_partitions_cache", !(a == b));
  }
  {
    VariantCache c;
    (void)c.get_or_compile(VariantKey::create("Lit", "Forward", {"FOG"}, 7), compiler);
    check("source_revision_invalidates_stale_variant", c.invalidate_shader("Lit", 8) == 1 && c.count() == 0);
  }
  VariantCache fixed;
  const auto first = VariantKey::create("Lit", "Forward", {"FOG", "SKIN"}, 7);
  auto r1 = fixed.get_or_compile(first, compiler);
  auto r2 = fixed.get_or_compile(VariantKey::create("Lit", "Forward", {"SKIN", "FOG"}, 7), compiler);
  check("cache_hit_does_not_recompile", r1 && r2 && r1->get() == r2->get() && fixed.compiles() == 1);
  const std::uint64_t requests = fixed.requests(), compiles = fixed.compiles();
  const std::size_t invalidated = fixed.invalidate_shader("Lit", 8);
  std::printf("FIXED requests=%llu compiles=%llu digest=%s invalidated=%zu remaining=%zu\n",
              static_cast<unsigned long long>(requests), static_cast<unsigned long long>(compiles),
              first.digest().c_str(), invalidated, fixed.count());
  std::printf("RESULT passed=%d failed=%d\n", passed, failed);
  return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace kiln::cli
