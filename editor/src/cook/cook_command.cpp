// `kiln cook <project> --out <dir> [--jobs N] [--json <report.json>] [--verify]`: validates the whole
// project, builds every variant its materials use on a worker pool (through the persistent variant
// cache), compiles its scripts to bytecode and every page into the JIT page cache (AOT), converts
// its textures to .tx, and writes one pack per kind. See cook_project.h and README "Cooking".

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_args.h"
#include "variant_store.h"
#include "cook/cook_project.h"
#include "cook/progress.h"
#include "kiln/cache/blob_store.h"
#include "kiln/cache/hash.h"
#include "kiln/jit/aot_pages.h"
#include "kiln/jit/jit_runtime.h"
#include "kiln/jit/page_analysis.h"
#include "kiln/jit/page_store.h"
#include "kiln/jit/program_io.h"
#include "kiln/jitc/llvm_page_compiler.h"
#include "kiln/runtime/pack.h"
#include "kiln/textures/tx_writer.h"

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
  std::vector<std::byte> payload;
};

// A variant as the shaders pack stores it: per stage its name, SPIR-V and reflection JSON.
std::vector<std::byte> variant_payload(const shadercache::CompiledVariant& variant) {
  std::vector<std::byte> out;
  auto u32 = [&](std::uint32_t v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    out.insert(out.end(), p, p + 4);
  };
  auto text = [&](const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    out.insert(out.end(), p, p + s.size());
  };
  u32(static_cast<std::uint32_t>(variant.stages.size()));
  for (const auto& stage : variant.stages) {
    text(stage.stage);
    text(stage.file);
    u32(static_cast<std::uint32_t>(stage.spirv.size()));
    const auto* p = reinterpret_cast<const std::byte*>(stage.spirv.data());
    out.insert(out.end(), p, p + stage.spirv.size() * 4);
    text(stage.reflection_json);
  }
  return out;
}

std::string variant_name(const materials::VariantKey& key) { return key.shader + "|" + key.pass + "|" + key.keywords; }

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
  cook::Progress progress(::isatty(STDERR_FILENO) != 0);

  const std::unique_ptr<cache::BlobStore> store = open_variant_store(config, "kiln cook");
  shadercache::ShaderLibrary library({.root = root, .store = store.get()});

  // 1. Validate everything; report every error.
  cook::Project project = cook::load_project(root, library);
  nlohmann::json report = {{"project", root.string()}, {"errors", project.errors}};
  if (!project.errors.empty()) {
    for (const auto& e : project.errors) std::fprintf(stderr, "%s\n", e.c_str());
    std::fprintf(stderr, "cook: %zu errors, nothing cooked\n", project.errors.size());
    report["totals"] = {{"errors", project.errors.size()}, {"wall_ms", ms_since(started)}};
    if (!report_file.empty()) std::ofstream(report_file) << report.dump(2) << "\n";
    return kExitFailed;
  }
  progress.line("cook: " + std::to_string(project.variants.size()) + " variants (" + std::to_string(project.used) +
                " used by " + std::to_string(project.materials.size()) + " materials, " +
                std::to_string(project.declared) + " declared to ship, " + std::to_string(project.stripped) +
                " stripped as invalid), " + std::to_string(project.scripts.size()) + " scripts, " +
                std::to_string(project.textures.size()) + " textures");

  // 2. Variants, on the worker pool.
  std::vector<VariantResult> results(project.variants.size());
  {
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
            r.payload = variant_payload(**variant);
          }
          progress.tick("variants", ++done, project.variants.size());
        }
      });
    for (auto& t : pool) t.join();
  }
  progress.done("variants");

  // --verify: what the cache served must be what compiling it now gives, byte for byte.
  std::vector<std::string> errors;
  if (args.has("--verify")) {
    shadercache::ShaderLibrary fresh({.root = root});
    std::size_t checked = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i].ok || !results[i].cache_hit) continue;
      const auto& key = project.variants[i].key;
      auto again = fresh.variant(key.shader, key.pass, key.keyword_list());
      ++checked;
      if (!again || variant_payload(**again) != results[i].payload)
        errors.push_back("cook: --verify: variant " + key.digest() + " (" + variant_name(key) +
                         ") differs from a fresh compile of it");
    }
    progress.line("cook: verified " + std::to_string(checked) + " variants the cache served");
  }

  // 3. Scripts: bytecode, and every page with every entry into the page cache (AOT).
  jitc::LlvmPageCompiler compiler;
  jit::JitStats script_stats;
  {
    auto runtime = jit::JitRuntime::create({.compiler = &compiler,
                                            .cache_dir = jit_cache_dir(config),
                                            .verify = args.has("--verify") || config.jit_cache_verify,
                                            .compile_threads = std::max(1, jobs),
                                            .synchronous = true});
    if (!runtime) {
      std::fprintf(stderr, "kiln cook: %s\n", runtime.error().message.c_str());
      return kExitFailed;
    }
    for (const auto& s : project.scripts) (*runtime)->precompile(s.program, jit::abi::JitMode::kChecked);
    script_stats = (*runtime)->stats();
  }
  // The AOT code goes into the scripts pack: read back from the page cache (or compiled here when
  // the cache is off). Pages that need something outside themselves are left to the interpreter.
  std::vector<std::pair<std::string, std::vector<std::byte>>> aot_pages;
  {
    std::unique_ptr<jit::PageStore> pages;
    if (!jit_cache_dir(config).empty()) {
      auto opened = jit::PageStore::open({.dir = jit_cache_dir(config), .build_id = jit::jit_build_id(),
                                          .fingerprint = compiler.fingerprint(), .background_writes = false});
      if (opened) pages = std::move(*opened);
    }
    std::set<std::string> seen;
    for (const auto& s : project.scripts)
      for (std::size_t p = 0; p < s.program.page_count(); ++p) {
        const auto page = s.program.page(p);
        const std::string name = jit::aot_page_name(page, jit::abi::JitMode::kChecked);
        if (!seen.insert(name).second) continue;
        const auto entries = jit::jit_entries(page, s.program.entries[p]);
        std::optional<jit::StoredPage> code;
        if (pages) code = pages->find(page, entries, jit::abi::JitMode::kChecked).hit;
        if (!code) {
          auto compiled = compiler.compile({page, entries, jit::abi::JitMode::kChecked});
          if (compiled && compiled->cacheable)
            code = jit::StoredPage{compiled->code, compiled->function_offset, compiled->alignment, compiled->entries};
        }
        if (code) aot_pages.emplace_back(name, jit::encode_aot_page(page, *code));
      }
  }
  progress.line("cook: " + std::to_string(project.scripts.size()) + " scripts, " + std::to_string(script_stats.requested) +
                " pages (" + std::to_string(script_stats.compiled) + " compiled, " + std::to_string(script_stats.loaded) +
                " from the page cache)");

  // 4. Textures: .tx made once per source content (cached under the cache root).
  std::vector<std::pair<std::string, std::vector<std::byte>>> textures;
  std::size_t textures_converted = 0;
  if (script_stats.verify_mismatches)
    errors.push_back("cook: --verify: " + std::to_string(script_stats.verify_mismatches) +
                     " script pages differ from a fresh compile of them");
  for (const std::string& rel : project.textures) {
    std::ifstream in(root / rel, std::ios::binary);
    const std::string source((std::istreambuf_iterator<char>(in)), {});
    const fs::path tx = texture_cache_dir(config) / ("cook-v1-" + cache::xxh3_128(source).hex() + ".tx");
    std::error_code ec;
    if (!fs::exists(tx, ec)) {
      fs::create_directories(tx.parent_path(), ec);
      if (auto made = textures::convert_to_tx(root / rel, tx); !made) {
        errors.push_back(made.error().message);
        continue;
      }
      ++textures_converted;
    }
    std::ifstream txin(tx, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(txin)), {});
    textures.emplace_back(rel, std::vector<std::byte>(reinterpret_cast<const std::byte*>(bytes.data()),
                                                      reinterpret_cast<const std::byte*>(bytes.data()) + bytes.size()));
  }

  // 5. Packs.
  std::size_t compiled = 0, hits = 0;
  nlohmann::json variants_json = nlohmann::json::array();
  runtime::PackWriter shaders(runtime::PackKind::kShaders,
                              "shaders " + std::string(library.disk_namespace() ? library.disk_namespace()->id : "no-cache"));
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& key = project.variants[i].key;
    const VariantResult& r = results[i];
    nlohmann::json v = {{"key", key.digest()}, {"shader", key.shader}, {"pass", key.pass}, {"keywords", key.keywords},
                        {"materials", project.variants[i].materials}, {"why", project.variants[i].used ? "used" : "declared"}};
    if (!r.ok) {
      errors.push_back(r.error);
      v["error"] = r.error;
    } else {
      (r.cache_hit ? hits : compiled)++;
      v["result"] = r.cache_hit ? "cache_hit" : "compile";
      v["compile_ms"] = r.ms;
      v["spirv_bytes"] = r.spirv_bytes;
      shaders.add(variant_name(key), r.payload);
    }
    variants_json.push_back(std::move(v));
  }
  // The materials, as the player needs them: each names the variants it resolves (one per pass).
  for (const auto& m : project.materials) {
    nlohmann::json material = {{"shader", m.shader}, {"keywords", m.keywords}, {"textures", m.textures}};
    nlohmann::json names = nlohmann::json::array();
    for (const auto& request : project.variants)
      if (std::find(request.materials.begin(), request.materials.end(), m.file) != request.materials.end())
        names.push_back(variant_name(request.key));
    material["variants"] = names;
    const std::string text = material.dump();
    shaders.add("material:" + m.file, std::vector<std::byte>(reinterpret_cast<const std::byte*>(text.data()),
                                                             reinterpret_cast<const std::byte*>(text.data()) + text.size()));
  }
  runtime::PackWriter scripts(runtime::PackKind::kScripts,
                              std::string("scripts ") + jit::jit_build_id() + " " + compiler.fingerprint());
  for (const auto& s : project.scripts) scripts.add(s.file, jit::serialize_program(s.program));
  for (auto& [name, bytes] : aot_pages) scripts.add(name, std::move(bytes));
  runtime::PackWriter texture_pack(runtime::PackKind::kTextures, "textures tx-writer-1");
  for (auto& [name, bytes] : textures) texture_pack.add(name, std::move(bytes));
  std::error_code ec;
  fs::create_directories(out, ec);
  for (const Status& written : {shaders.write(out / "shaders.pack"), scripts.write(out / "scripts.pack"),
                                 texture_pack.write(out / "textures.pack")})
    if (!written) errors.push_back(written.error().message);

  const double wall = ms_since(started);
  report["errors"] = errors;
  report["variants"] = variants_json;
  report["totals"] = {{"variants", project.variants.size()}, {"used", project.used}, {"declared", project.declared},
                      {"stripped", project.stripped},      {"compiled", compiled}, {"cache_hits", hits},
                      {"errors", errors.size()},           {"wall_ms", wall}};
  report["scripts"] = {{"files", project.scripts.size()},  {"pages", script_stats.requested}, {"aot_pages", aot_pages.size()},
                       {"compiled", script_stats.compiled}, {"cache_hits", script_stats.loaded},
                       {"not_cacheable", script_stats.not_cacheable}};
  report["textures"] = {{"files", project.textures.size()}, {"converted", textures_converted},
                        {"cache_hits", textures.size() - textures_converted}};
  if (!report_file.empty()) std::ofstream(report_file) << report.dump(2) << "\n";
  for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.c_str());
  std::printf("cook: %zu variants, %zu compiled, %zu cache hits, %zu errors, %.2f s\n", project.variants.size(), compiled,
              hits, errors.size(), wall / 1000);
  return errors.empty() ? kExitOk : kExitFailed;
}

}  // namespace kiln::cli
