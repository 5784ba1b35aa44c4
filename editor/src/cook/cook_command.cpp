// `kiln cook <project> --out <dir> [--jobs N] [--json <report.json>] [--verify]`: validates the whole
// project, builds every variant its materials use on a worker pool (through the persistent variant
// cache), compiles its scripts to bytecode and every page into the JIT page cache (AOT), converts
// its textures to .tx, and — only when all of that succeeded — switches the output directory to the
// new cooked set. See cook_project.h and README "Cooking".

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_args.h"
#include "persistent_caches.h"
#include "cook/cook_errors.h"
#include "cook/cook_project.h"
#include "cook/cook_settings.h"
#include "cook/progress.h"
#include "cook/texture_conversions.h"
#include "kiln/cache/blob_store.h"
#include "kiln/cache/hash.h"
#include "kiln/core/atomic_output.h"
#include "kiln/jit/aot_pages.h"
#include "kiln/jit/jit_runtime.h"
#include "kiln/jit/page_analysis.h"
#include "kiln/jit/page_store.h"
#include "kiln/jit/program_io.h"
#include "kiln/jitc/llvm_page_compiler.h"
#include "kiln/materials/material_layout.h"
#include "kiln/runtime/cooked_set_writer.h"

namespace kiln::cli {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

constexpr const char* kUsage = "usage: kiln cook <project> --out <dir> [--jobs N] [--json <report.json>] [--verify]\n";

struct VariantResult {
  bool ok = false, cache_hit = false;
  double ms = 0;
  std::size_t spirv_bytes = 0;
  std::string error;
  runtime::VariantRecord record;
};

runtime::VariantRecord variant_record(const shadercache::CompiledVariant& variant) {
  runtime::VariantRecord record;
  for (const auto& stage : variant.stages)
    record.stages.push_back({stage.stage, stage.file, stage.spirv, stage.reflection_json, stage.backend_source});
  return record;
}

bool same_record(const runtime::VariantRecord& a, const runtime::VariantRecord& b) {
  return runtime::encode_variant_record(a) == runtime::encode_variant_record(b);
}

// How messages name a variant: "shaders/lit Forward FOG;NORMALMAP".
std::string shown_variant(const materials::VariantKey& key) {
  return key.shader + " " + key.pass + (key.keywords.empty() ? "" : " " + key.keywords);
}

std::vector<VariantResult> build_variants(const cook::Project& project, shadercache::ShaderLibrary& library, int jobs,
                                          cook::Progress& progress) {
  std::vector<VariantResult> results(project.variants.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < jobs; ++t)
    pool.emplace_back([&] {
      for (std::size_t i; (i = next.fetch_add(1)) < project.variants.size();) {
        const auto& key = project.variants[i].key;
        const auto t0 = Clock::now();
        auto variant = library.variant(key.shader, key.pass, key.keyword_list());
        VariantResult& r = results[i];
        r.ms = ms_since(t0);
        if (!variant) {
          r.error = variant.error().message;
        } else {
          r.ok = true;
          r.cache_hit = (*variant)->from_disk;
          for (const auto& s : (*variant)->stages) r.spirv_bytes += s.spirv.size() * 4;
          r.record = variant_record(**variant);
        }
        progress.tick("variants", ++done, project.variants.size());
      }
    });
  for (auto& t : pool) t.join();
  progress.done("variants", std::size_t(std::count_if(results.begin(), results.end(), [](const VariantResult& r) { return !r.ok; })));
  return results;
}

// The compiled pages of every script, read back from the page cache (or compiled here when the
// cache is off). Pages that need something outside themselves are left to the interpreter.
std::vector<std::pair<std::string, std::vector<std::byte>>> aot_pages(const cook::Project& project, const Config& config,
                                                                      jitc::LlvmPageCompiler& compiler) {
  std::vector<std::pair<std::string, std::vector<std::byte>>> out;
  std::unique_ptr<jit::PageStore> pages;
  if (!jit_cache_root(config).empty()) {
    auto opened = jit::PageStore::open({.root = jit_cache_root(config), .build_id = jit::jit_build_id(),
                                        .fingerprint = compiler.fingerprint(), .max_bytes = config.cache_disk_max_bytes,
                                        .keep_builds = config.cache_keep_builds, .background_writes = false});
    if (opened) pages = std::move(*opened);
  }
  std::set<std::string> seen;
  for (const auto& s : project.scripts)
    for (std::size_t p = 0; p < s.program.page_count(); ++p) {
      const auto page = s.program.page(p);
      const std::string id = jit::aot_page_id(page, jit::abi::JitMode::kChecked);
      if (!seen.insert(id).second) continue;
      const auto entries = jit::jit_entries(page, s.program.entries[p]);
      std::optional<jit::StoredPage> code;
      if (pages) code = pages->find(page, entries, jit::abi::JitMode::kChecked).hit;
      if (!code) {
        auto compiled = compiler.compile({page, entries, jit::abi::JitMode::kChecked});
        if (compiled && compiled->cacheable)
          code = jit::StoredPage{compiled->code, compiled->function_offset, compiled->alignment, compiled->entries};
      }
      if (code) out.emplace_back(id, jit::encode_aot_page(page, *code));
    }
  return out;
}

// The report's JSON, written through a temp file: a failure to write it is the cook's failure.
bool write_report(const std::string& file, const nlohmann::json& report) {
  if (file.empty()) return true;
  const std::string text = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (auto s = write_file_atomically(file, std::as_bytes(std::span(text))); !s) {
    std::fprintf(stderr, "kiln cook: %s\n", s.error().message.c_str());
    return false;
  }
  return true;
}

}  // namespace

int run_cook_command(const Args& args) {
  const auto started = Clock::now();
  if (args.words.size() < 2 || args.words.size() > 3 || (args.words.size() == 3 && !args.json)) {
    std::fprintf(stderr, "%s", kUsage);
    return kExitUsage;
  }
  if (auto s = args.check_options({"--out"}); !s) {
    std::fprintf(stderr, "kiln cook: %s\n%s", s.error().message.c_str(), kUsage);
    return kExitUsage;
  }
  const fs::path root = args.words[1], out = args.option("--out");
  const std::string report_file = args.words.size() == 3 ? args.words[2] : "";
  if (out.empty()) {
    std::fprintf(stderr, "kiln cook: --out <dir> is required\n%s", kUsage);
    return kExitUsage;
  }
  auto loaded = load_config(args.config);
  if (!loaded) {
    std::fprintf(stderr, "kiln: %s\n", loaded.error().message.c_str());
    return kExitUsage;
  }
  const Config& config = loaded->config;
  const int jobs = config.jobs > 0 ? config.jobs : std::max(1, int(std::thread::hardware_concurrency()));
  const bool verify = args.has("--verify");
  cook::Progress progress(::isatty(STDERR_FILENO) != 0);
  cook::CookErrors errors(root);
  nlohmann::json report = {{"project", root.string()}};
  // Errors come before the summary, once each; the output directory keeps its previous set.
  auto fail = [&](const char* what) {
    for (const auto& line : errors.lines()) std::fprintf(stderr, "%s\n", line.c_str());
    std::fprintf(stderr, "cook: %zu errors, %s; %s keeps its previous set\n", errors.size(), what, out.string().c_str());
    report["errors"] = errors.to_json();
    report["totals"]["errors"] = errors.size();
    report["totals"]["wall_ms"] = ms_since(started);
    write_report(report_file, report);
    return kExitFailed;
  };

  auto settings = cook::load_cook_settings(root);
  if (!settings) {
    errors.add(settings.error().message);
    return fail("nothing cooked");
  }
  const std::unique_ptr<cache::BlobStore> store = open_variant_store(config, "kiln cook");
  // One library per target, each under its own cache namespace; the first also answers for the
  // shaders' declarations.
  std::vector<std::unique_ptr<shadercache::ShaderLibrary>> libraries;
  const auto library_options = [&](const cook::CookTarget& target) {
    return shadercache::ShaderLibraryOptions{
        .root = root,
        .include_dirs = std::vector<fs::path>(settings->include_dirs.begin(), settings->include_dirs.end()),
        .defines = settings->defines,
        .target = target.target_env,
        .backend = target.backend,
        .store = store.get(),
        .isolation = compile_isolation(config)};
  };
  for (const auto& target : settings->targets)
    libraries.push_back(std::make_unique<shadercache::ShaderLibrary>(library_options(target)));
  shadercache::ShaderLibrary& library = *libraries.front();

  // 1. Validate everything; report every error.
  cook::Project project = cook::load_project(root, library);
  for (const auto& e : project.errors) errors.add(e);
  if (!errors.empty()) return fail("nothing cooked");
  progress.line("cook: " + std::to_string(project.variants.size()) + " variants (" + std::to_string(project.used) +
                " used by " + std::to_string(project.materials.size()) + " materials, " +
                std::to_string(project.declared) + " declared to ship, " + std::to_string(project.stripped) +
                " stripped as invalid), " + std::to_string(project.scripts.size()) + " scripts, " +
                std::to_string(project.textures.size()) + " textures");

  // 2. Variants, on the worker pool; --verify: what the cache served must be what compiling it now
  // gives, byte for byte.
  std::vector<std::vector<VariantResult>> built;  // per target, per variant
  for (auto& target_library : libraries) built.push_back(build_variants(project, *target_library, jobs, progress));
  const std::vector<VariantResult>& results = built.front();
  for (const auto& target_results : built)
    for (std::size_t i = 0; i < target_results.size(); ++i)
      if (!target_results[i].ok) errors.add(target_results[i].error, shown_variant(project.variants[i].key));
  // Materials against the variants they use: every parameter and texture slot must exist in
  // their reflection; the record gets its parameter blocks and texture bindings.
  {
    std::map<std::string, std::vector<std::string>> reflections;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i].ok) continue;
      auto& stages = reflections[project.variants[i].key.name()];
      for (const auto& stage : results[i].record.stages) stages.push_back(stage.reflection_json);
    }
    for (auto& m : project.materials) {
      const bool all_built = std::all_of(m.record.passes.begin(), m.record.passes.end(),
                                     [&](const runtime::MaterialPass& p) { return reflections.count(p.variant) > 0; });
      if (!all_built) {
        // Its variants' errors say why; a variant missing without one is a bug of the cook.
        if (errors.empty()) errors.add(m.record.file + ": a variant it uses was not built");
        continue;
      }
      if (auto laid = materials::lay_out_material(m.source, reflections, m.record); !laid) errors.add(laid.error().message);
    }
  }
  if (verify) {
    std::size_t checked = 0;
    for (std::size_t t = 0; t < built.size(); ++t) {
      // Fresh compiles, stored over what the cache held: a differing entry is never served again.
      auto options = library_options(settings->targets[t]);
      options.refresh_store = true;
      shadercache::ShaderLibrary fresh(options);
      for (std::size_t i = 0; i < built[t].size(); ++i) {
        if (!built[t][i].ok) continue;  // compiled now or served by the cache: both must match
        const auto& key = project.variants[i].key;
        auto again = fresh.variant(key.shader, key.pass, key.keyword_list());
        ++checked;
        if (!again || !same_record(variant_record(**again), built[t][i].record))
          errors.add("cook: --verify: variant " + key.digest() + " (" + key.name() + ", " + settings->targets[t].id() +
                     ") differs from a fresh compile of it");
      }
    }
    progress.line("cook: verified " + std::to_string(checked) + " variants against a fresh compile");
  }

  // 3. Scripts: bytecode, and every page with every entry into the page cache (AOT).
  jitc::LlvmPageCompiler compiler;
  jit::JitStats script_stats;
  {
    auto runtime = open_jit_runtime({.compiler = &compiler,
                                     .cache_root = jit_cache_root(config),
                                     .verify = verify || config.jit_cache_verify,
                                     .compile_threads = std::max(1, jobs),
                                     .synchronous = true,
                                     .cache_max_bytes = config.cache_disk_max_bytes,
                                     .keep_builds = config.cache_keep_builds},
                                    "kiln cook");
    if (!runtime) {
      errors.add("kiln cook: " + runtime.error().message);
      return fail("nothing written");
    }
    for (const auto& s : project.scripts) (*runtime)->precompile(s.program, jit::abi::JitMode::kChecked);
    script_stats = (*runtime)->stats();
  }
  if (script_stats.verify_mismatches)
    errors.add("cook: --verify: " + std::to_string(script_stats.verify_mismatches) +
               " script pages differ from a fresh compile of them");
  auto pages = aot_pages(project, config, compiler);
  progress.line("cook: " + std::to_string(project.scripts.size()) + " scripts, " + std::to_string(script_stats.requested) +
                " pages (" + std::to_string(script_stats.compiled) + " compiled, " + std::to_string(script_stats.loaded) +
                " from the page cache)");

  // 4. Textures: .tx made once per source content (cached under the cache root, checked when used).
  std::vector<std::pair<std::string, std::vector<std::byte>>> textures;
  std::size_t textures_converted = 0, artist_tx = 0;
  const auto texture_store = open_cache_store(config, "kiln cook");
  cook::TextureConversions conversions(texture_store.get());
  for (const std::string& rel : project.textures) {
    auto tx = conversions.get(root / rel, verify);
    if (!tx) {
      errors.add(tx.error().message);
      continue;
    }
    textures_converted += tx->converted;
    artist_tx += !tx->artist_tx.empty();
    textures.emplace_back(rel, std::move(tx->bytes));
  }

  // 5. The report of what was built.
  std::size_t compiled = 0, hits = 0;
  nlohmann::json variants_json = nlohmann::json::array();
  for (std::size_t t = 0; t < built.size(); ++t)
  for (std::size_t i = 0; i < built[t].size(); ++i) {
    const auto& key = project.variants[i].key;
    const VariantResult& r = built[t][i];
    nlohmann::json v = {{"key", key.digest()}, {"shader", key.shader}, {"pass", key.pass}, {"keywords", key.keywords},
                        {"target", settings->targets[t].id()},
                        {"materials", project.variants[i].materials}, {"why", project.variants[i].used ? "used" : "declared"}};
    if (!r.ok) {
      v["error"] = r.error;
    } else {
      (r.cache_hit ? hits : compiled)++;
      v["result"] = r.cache_hit ? "cache_hit" : "compile";
      v["compile_ms"] = r.ms;
      v["spirv_bytes"] = r.spirv_bytes;
    }
    variants_json.push_back(std::move(v));
  }
  report["variants"] = variants_json;
  report["totals"] = {{"variants", project.variants.size()}, {"used", project.used}, {"declared", project.declared},
                      {"stripped", project.stripped},      {"compiled", compiled}, {"cache_hits", hits}};
  report["scripts"] = {{"files", project.scripts.size()},  {"pages", script_stats.requested}, {"aot_pages", pages.size()},
                       {"compiled", script_stats.compiled}, {"cache_hits", script_stats.loaded},
                       {"not_cacheable", script_stats.not_cacheable}};
  report["textures"] = {{"files", project.textures.size()}, {"converted", textures_converted},
                        {"cache_hits", textures.size() - textures_converted - artist_tx}, {"from_tx", artist_tx},
                        {"cache_discarded", conversions.discarded()}};
  if (!errors.empty()) return fail("nothing written");

  // 6. The set: written beside the previous one, switched in by its manifest.
  runtime::ShadersIdentity shaders_identity;
  for (std::size_t t = 0; t < libraries.size(); ++t)
    shaders_identity.targets.emplace_back(
        settings->targets[t].id(), libraries[t]->disk_namespace() ? libraries[t]->disk_namespace()->id : "no-cache");
  runtime::CookedSetWriter set(shaders_identity, {jit::jit_build_id(), compiler.fingerprint()});
  for (std::size_t t = 0; t < built.size(); ++t)
    for (std::size_t i = 0; i < built[t].size(); ++i)
      set.add_variant(settings->targets[t].id(), project.variants[i].key.name(), built[t][i].record);
  for (const auto& m : project.materials) set.add_material(m.record);
  for (const auto& s : project.scripts) set.add_program(s.file, jit::serialize_program(s.program));
  for (auto& [id, bytes] : pages) set.add_page(id, std::move(bytes));
  for (auto& [file, bytes] : textures) set.add_texture(file, std::move(bytes));
  if (auto written = set.commit(out); !written) {
    errors.add(written.error().message);
    return fail("nothing written");
  }

  const double wall = ms_since(started);
  report["errors"] = nlohmann::json::array();
  report["totals"]["errors"] = 0;
  report["totals"]["wall_ms"] = wall;
  const bool reported = write_report(report_file, report);
  // The caches grew by this cook: the cap and the build limit hold over every kind again.
  if (store) store->flush();
  if (texture_store) (void)texture_store->prune();
  std::printf("cook: %zu variants, %zu compiled, %zu cache hits, 0 errors, %.2f s\n", project.variants.size(), compiled,
              hits, wall / 1000);
  return reported ? kExitOk : kExitFailed;
}

}  // namespace kiln::cli
