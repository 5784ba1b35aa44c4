// `kiln cook <project> --out <dir> [--jobs N] [--report <report.json>] [--verify]`: validates the whole
// project, then runs its stages on one worker pool — variants (through the persistent variant
// cache), scripts (bytecode, and every page into the page cache ahead of time), textures (.tx) —
// and only when all of them succeeded switches the output directory to the new cooked set. With
// --shard it builds one part of the variants and textures into the cache instead (cook_shard.h).
// See kiln/project/project.h and README "Cooking".

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_args.h"
#include "persistent_caches.h"
#include "project_library.h"
#include "script_runtime.h"
#include "cook/cook_errors.h"
#include "kiln/project/project.h"
#include "cook/cook_previews.h"
#include "cook/cook_report.h"
#include "cook/cook_scripts.h"
#include "cook/cook_shard.h"
#include "cook/cook_textures.h"
#include "cook/cook_usage.h"
#include "cook/cook_variants.h"
#include "cook/progress.h"
#include "cook/texture_conversions.h"
#include "cook/previous_shaders.h"
#include "cook/unchanged_shaders.h"
#include "cook/unchanged_textures.h"
#include "kiln/cache/blob_store.h"
#include "kiln/core/project_paths.h"
#include "kiln/core/worker_pool.h"
#include "kiln/jit/program_io.h"
#include "kiln/core/text.h"
#include "kiln/runtime/cooked_set_writer.h"
#include "kiln/runtime/manifest.h"
#include "kiln/signing/signing_key.h"

namespace kiln::cli {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

constexpr const char* kUsage =
    "usage: kiln cook <project> --out <dir> [--jobs N] [--report <report.json>] [--json] [--verify] [--previews]\n"
    "                 [--sign <key>] [--usage <record.json>]... [--usage-lenient]\n"
    "       kiln cook <project> --shard i/N [--shard-count N] [--report <report.json>] [--json]\n";

// The variables of the schedulers a shard index can come from.
std::map<std::string, std::string> scheduler_env() {
  std::map<std::string, std::string> env;
  for (const char* name : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP",
                           "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX"})
    if (const char* value = std::getenv(name)) env[name] = value;
  return env;
}

// Where the set may go: not the project, not above it, not inside its sources or include
// directories, where the next cook would read the set's files as inputs. Compared as the
// project's path rules compare, symbolic links resolved.
std::optional<std::string> misplaced_output(const fs::path& root, const fs::path& out,
                                            const std::vector<std::string>& include_dirs) {
  fs::path project;
  if (resolves_inside(root, canonical_roots({out}), &project))
    return canonical_roots({out}).front() == project ? "is the project itself" : "contains the project";
  std::vector<std::string> sources = {"materials", "shaders", "scripts", "textures"};
  sources.insert(sources.end(), include_dirs.begin(), include_dirs.end());
  for (const auto& dir : sources)
    if (resolves_inside(out, canonical_roots({root / dir})))
      return "is inside the project's sources (" + dir + "/): the next cook would read the set as input";
  return std::nullopt;
}

nlohmann::json remote_report(const cache::BlobStore* store) {
  if (!store || store->remote_address().empty()) return nullptr;
  const cache::KindUse use = store->remote_use();
  return {{"address", store->remote_address()},
          {"read_only", store->remote_read_only()},
          {"trouble", store->remote_trouble()},
          {"hits", use.remote_hits},
          {"misses", use.remote_misses},
          {"rejected", use.remote_rejected},
          {"untrusted", use.remote_untrusted},
          {"errors", use.remote_errors},
          {"writes", use.remote_writes},
          {"bytes_read", use.remote_bytes_read},
          {"bytes_written", use.remote_bytes_written}};
}

// A shard: this machine's part of the variants and texture conversions, into the cache (and its
// remote level); no scripts, no packs.
int run_shard(const cook::Shard& shard, const project::Project& project, std::vector<cook::TargetVariants>& targets,
              cache::BlobStore* store, core::WorkerPool& pool, cook::Progress& progress, cook::CookErrors& errors,
              cook::CookReport& report, const std::string& report_file, bool json, Clock::time_point started) {
  const cook::ShardWork work = cook::shard_work(project, shard);
  progress.line("cook: shard " + shard.text() + ": " + std::to_string(work.variants.size()) + " of " +
                std::to_string(project.variants.size()) + " variants, " + std::to_string(work.textures.size()) +
                " of " + std::to_string(project.textures.size()) + " textures");
  if (!store || store->remote_address().empty())
    progress.line("cook: no cache.remote: this shard's results stay in this machine's cache");
  cook::build_variants(work.variants, targets, {}, pool, progress, errors);
  cook::TextureConversions conversions(store);
  cook::TextureEncodings encodings(store);
  const cook::CookedTextures textures = cook::cook_textures(project.root, work.textures, conversions, encodings, false,
                                                            project.settings.targets, pool, progress, errors);
  if (store) store->flush();  // on disk and on the remote before this shard says it is done

  const cook::VariantCounts counts = cook::count_variants(targets);
  const double wall = ms_since(started);
  report.shard = cook::ShardReport{std::size_t(shard.index) + 1, std::size_t(shard.count), work.variants.size(),
                                   textures.files.size(),        textures.converted,       counts};
  report.remote = remote_report(store);
  report.errors = errors.to_json();
  report.error_count = errors.size();
  report.wall_ms = wall;
  const bool reported = cook::write_report(report_file, report);
  for (const auto& line : errors.lines()) std::fprintf(stderr, "%s\n", line.c_str());
  if (json)
    std::printf("%s\n", cook::report_text(report).c_str());
  else
    std::printf(
        "cook: shard %s: %zu variants, %zu compiled, %zu cache hits, %zu textures (%zu converted), %zu errors, "
        "%.2f s\n",
        shard.text().c_str(), work.variants.size(), counts.compiled, counts.cache_hits, textures.files.size(),
        textures.converted, errors.size(), wall / 1000);
  if (store) (void)store->prune();
  return errors.empty() && reported ? kExitOk : kExitFailed;
}

}  // namespace

int run_cook_command(const Args& args) {
  const auto started = Clock::now();
  if (args.words.size() != 2) {
    std::fprintf(stderr, "%s", kUsage);
    return kExitUsage;
  }
  if (auto s = args.check_options({"--out", "--report", "--shard", "--shard-count", "--sign", "--usage"}); !s) {
    std::fprintf(stderr, "kiln cook: %s\n%s", s.error().message.c_str(), kUsage);
    return kExitUsage;
  }
  const fs::path root = args.words[1], out = args.option("--out");
  std::string report_file = args.option("--report");
  // A scheduler's variables make a shard only of a cook that writes no packs: the assembling cook
  // may run in the same job array.
  auto shard = cook::shard_of_cook(args.option("--shard"), args.option("--shard-count"),
                                   out.empty() ? scheduler_env() : std::map<std::string, std::string>{});
  if (!shard) {
    std::fprintf(stderr, "kiln cook: %s\n%s", shard.error().message.c_str(), kUsage);
    return kExitUsage;
  }
  if (out.empty() && !*shard) {
    std::fprintf(stderr, "kiln cook: --out <dir> is required\n%s", kUsage);
    return kExitUsage;
  }
  if (*shard && (args.has("--verify") || args.has("--previews"))) {
    std::fprintf(stderr, "kiln cook: --verify and --previews are for the cook that assembles the packs\n%s", kUsage);
    return kExitUsage;
  }
  if (*shard && !args.option("--sign").empty()) {
    std::fprintf(stderr, "kiln cook: a shard signs nothing (--sign is for the cook that assembles the packs)\n%s",
                 kUsage);
    return kExitUsage;
  }
  const std::vector<std::string> usage_files = args.option_values("--usage");
  const bool usage_lenient = args.has("--usage-lenient");
  if (*shard && !usage_files.empty()) {
    std::fprintf(stderr, "kiln cook: --usage is for the cook that assembles the packs (a shard builds its part)\n%s",
                 kUsage);
    return kExitUsage;
  }
  if (usage_lenient && usage_files.empty()) {
    std::fprintf(stderr, "kiln cook: --usage-lenient needs --usage <record.json>\n%s", kUsage);
    return kExitUsage;
  }
  if (!out.empty() && *shard) {
    std::fprintf(stderr, "kiln cook: a shard writes no packs (--out is for the cook that assembles them)\n%s", kUsage);
    return kExitUsage;
  }
  auto loaded = load_config(args.config);
  if (!loaded) {
    std::fprintf(stderr, "kiln: %s\n", loaded.error().message.c_str());
    return kExitUsage;
  }
  const Config& config = loaded->config;
  const bool verify = args.has("--verify");
  core::WorkerPool pool(config.jobs);  // every stage's parallel work
  if (!pool.shortfall().empty()) std::fprintf(stderr, "cook: %s: slower than --jobs asks\n", pool.shortfall().c_str());
  cook::Progress progress(::isatty(STDERR_FILENO) != 0);
  cook::CookErrors errors(root);
  cook::CookReport report{.project = root.string()};
  // Errors come before the summary, once each; the output directory keeps its previous set, when
  // it has one.
  auto fail = [&] {
    for (const auto& line : errors.lines()) std::fprintf(stderr, "%s\n", line.c_str());
    std::error_code ec;
    const bool had_set = !out.empty() && fs::exists(out / runtime::kManifestFile, ec);
    std::fprintf(stderr, "cook: %s, nothing written%s\n", count_of(errors.size(), "error").c_str(),
                 had_set ? ("; " + out.string() + " keeps its previous set").c_str() : "");
    report.errors = errors.to_json();
    report.error_count = errors.size();
    report.wall_ms = ms_since(started);
    cook::write_report(report_file, report);
    if (args.json) std::printf("%s\n", cook::report_text(report).c_str());
    return kExitFailed;
  };

  // A report that cannot be written fails the cook: known before any work, so no set is written.
  if (!report_file.empty()) {
    std::error_code ec;
    const fs::path dir =
        fs::path(report_file).parent_path().empty() ? fs::path(".") : fs::path(report_file).parent_path();
    const char* why = !fs::is_directory(dir, ec)         ? "no such directory"
                      : ::access(dir.c_str(), W_OK) != 0 ? "the directory is not writable"
                                                         : nullptr;
    if (why) {
      errors.add(report_file + ": cannot write the report there (" + why + ")");
      report_file.clear();  // nothing to write it to
      return fail();
    }
  }
  if (std::error_code ec; !fs::is_directory(root, ec)) {
    std::fprintf(stderr, "kiln cook: %s: no such project directory\n", root.c_str());
    return kExitUsage;
  }
  auto settings = project::load_project_settings(root);
  if (!settings) {
    errors.add(settings.error().message);
    return fail();
  }
  if (const auto why = out.empty() ? std::nullopt : misplaced_output(root, out, settings->include_dirs)) {
    std::fprintf(stderr, "kiln cook: --out %s %s\n%s", out.c_str(), why->c_str(), kUsage);
    return kExitUsage;
  }
  // The signing key, read before any work: a key others may read, or no key at all, is said now.
  // --sign, else cook.sign_key as configured, else the project's; shards need none.
  std::optional<signing::SigningKey> sign_key;
  if (!*shard) {
    fs::path key_file = args.option("--sign");
    if (key_file.empty())
      key_file = loaded->origin.at("cook.sign_key") != "default" ? config.cook_sign_key : settings->sign_key;
    if (!key_file.empty()) {
      auto key = signing::SigningKey::load(key_file);
      if (!key) {
        std::fprintf(stderr, "kiln cook: %s\n", key.error().message.c_str());
        return kExitUsage;
      }
      sign_key = std::move(*key);
    }
  }
  // The usage records, read before any work: a record that does not read is said now.
  std::optional<cook::UsageInput> usage;
  if (!usage_files.empty()) {
    auto read = cook::read_usage_records(usage_files);
    if (!read) {
      errors.add(read.error().message);
      return fail();
    }
    usage = std::move(*read);
  }
  // One store for every kind the cook fills, so that a remote level behind it warns once.
  const std::unique_ptr<cache::BlobStore> cache_store =
      open_cache_store(config, "kiln cook", open_remote_level(config, "kiln cook"), shard->has_value());
  cache::BlobStore* const variant_store = shader_store(config, cache_store.get());
  // One library per target, each under its own cache namespace; the first also answers for the
  // shaders' declarations.
  // A cook asks for each variant once and hands it to the set at once: its libraries keep none in
  // memory, so that the cook's memory does not grow with the project.
  const auto library_options = [&](const runtime::ShaderTarget& target) {
    auto options = project_library_options(root, *settings, target, config, variant_store);
    options.memory_budget_bytes = 0;
    return options;
  };
  std::vector<cook::TargetVariants> targets;
  for (const auto& target : settings->targets)
    targets.push_back({target, std::make_unique<shadercache::ShaderLibrary>(library_options(target)), {}});

  // Validate everything; report every error.
  auto stage_started = Clock::now();
  project::Project project = project::load_project(root, *settings, *targets.front().library, &pool);
  report.stage_ms.project = ms_since(stage_started);
  for (const auto& e : project.errors) errors.add(e);
  // What the records say the game uses, of a sound project.
  std::optional<project::UsageSelection> selection;
  if (usage && errors.empty()) {
    selection = project::select_by_usage(project, usage->record, usage_lenient);
    for (const auto& e : selection->errors) errors.add(e);
    if (!errors.empty()) return fail();
  }
  // A broken project still builds what is sound, so that one run lists the shaders' errors, the
  // scripts' and the textures' together with the project's (a shard stops here).
  if (!errors.empty() && (*shard || project.variants.empty())) return fail();
  if (*shard)
    return run_shard(**shard, project, targets, cache_store.get(), pool, progress, errors, report, report_file,
                     args.json, started);
  progress.line("cook: " + count_of(project.variants.size(), "variant") + " (" + std::to_string(project.used) +
                " used by " + count_of(project.materials.size(), "material") + ", " + std::to_string(project.declared) +
                " declared to ship, " + std::to_string(project.stripped) + " stripped as invalid), " +
                count_of(project.scripts.size(), "script") + ", " + count_of(project.textures.size(), "texture"));

  // The set: filled as the stages build, written beside the previous one, switched in by its manifest.
  runtime::ShadersIdentity shaders_identity;
  for (const auto& target : targets)
    shaders_identity.targets.emplace_back(target.target.id(), target.library->namespace_id());
  runtime::CookedSetWriter set(shaders_identity);

  // Variants, each into the set as it is built; --verify: what the cache served must be what
  // compiling it now gives, byte for byte. A set in --out made from the same inputs keeps its
  // shaders pack, and no variant is read at all.
  stage_started = Clock::now();
  const std::optional<cache::Hash128> inputs =
      cook::shaders_inputs(project, targets, shaders_identity, usage ? usage->sha256 : std::string(), pool);
  const std::optional<cook::KeptShadersPack> unchanged =
      inputs && !verify ? cook::unchanged_shaders_pack(out, *inputs) : std::nullopt;
  std::vector<runtime::MaterialRecord> materials;
  if (unchanged) {
    set.keep_pack(runtime::PackKind::kShaders, unchanged->pack);
    progress.line("cook: " + count_of(project.variants.size() * targets.size(), "variant") +
                  " unchanged since the set in " + out.string() + ": its shaders pack is kept");
  } else {
    // Some inputs changed: what did not is copied from the set being replaced.
    const auto previous = verify ? nullptr : cook::PreviousShaders::open(out, shaders_identity);
    cook::build_variants(
        project.variants, targets,
        [&set](const std::string& target, const std::string& name, std::span<const std::byte> record) {
          set.add_encoded_variant(target, name, record);
        },
        pool, progress, errors, previous.get());
    cook::report_warnings(targets, report);
    materials = cook::lay_out_materials(project, targets.front(), errors);
  }
  if (verify) {
    const auto fresh_options = [&](const runtime::ShaderTarget& target) {
      auto options = library_options(target);
      options.refresh_store = true;  // fresh compiles, stored over what the cache held
      return options;
    };
    const std::size_t checked = cook::verify_variants(targets, fresh_options, pool, errors);
    progress.line("cook: verified " + std::to_string(checked) + " variants against a fresh compile");
  }
  report.stage_ms.variants = ms_since(stage_started);

  // Scripts.
  // The cook ships every page compiled. The compiler (LLVM) starts when a page is not in the cache,
  // in kiln-page-worker processes unless jit.compile_workers is off: a warm cook never maps it. One
  // that cannot compile a page for a reason not the page's own fails the cook.
  stage_started = Clock::now();
  auto compiler = open_cook_compiler(config, jit_store(config, cache_store.get()));
  if (!compiler) {
    errors.add("kiln cook: the script compiler is not available: " + compiler.error().message);
    return fail();
  }
  cook::CookedScripts scripts;
  // Hot pages only when the records name pages (a run with the interpreter alone names none).
  const std::set<std::string>* hot = usage && !usage->record.pages.empty() ? &usage->record.pages : nullptr;
  if (!cook::cook_scripts(project, config, jit_store(config, cache_store.get()), verify, *compiler->compiler, pool,
                          progress, hot, scripts, errors))
    return fail();
  if (const std::string why = compiler->failure(); !why.empty()) {
    errors.add("kiln cook: " + why);
    return fail();
  }
  compiler->release();  // the page workers' memory back for the textures and the commit
  report.stage_ms.scripts = ms_since(stage_started);

  // Textures. A set in --out made from the same sources, settings and targets keeps its textures
  // pack: no conversion or encoding is read.
  stage_started = Clock::now();
  cook::TextureConversions conversions(cache_store.get());
  cook::TextureEncodings encodings(cache_store.get());
  const std::optional<cache::Hash128> textures_inputs =
      cook::textures_inputs(project.root, project.textures, project.settings.targets, conversions, encodings, pool);
  const std::optional<cook::KeptTexturesPack> kept_textures =
      textures_inputs && !verify ? cook::unchanged_textures_pack(out, *textures_inputs) : std::nullopt;
  cook::CookedTextures textures;
  if (kept_textures) {
    set.keep_pack(runtime::PackKind::kTextures, kept_textures->pack);
    progress.line("cook: " + count_of(project.textures.size(), "texture") + " unchanged since the set in " +
                  out.string() + ": its textures pack is kept");
  } else {
    textures = cook::cook_textures(project.root, project.textures, conversions, encodings, verify,
                                   project.settings.targets, pool, progress, errors);
  }
  report.stage_ms.textures = ms_since(stage_started);

  // The report of what was built.
  cook::report_cooked(project, targets, scripts, textures, conversions.discarded() + encodings.discarded(), report);
  if (kept_textures) {
    report.textures = kept_textures->counts;
    report.textures->pack_kept = true;
    report.textures->pack_proved_by_identity = kept_textures->proved_by_identity;
  }
  if (unchanged) {
    report.totals->built.unchanged = project.variants.size() * targets.size();
    report.totals->built.pack_kept = true;
    report.totals->built.pack_proved_by_identity = unchanged->proved_by_identity;
  }
  if (usage)
    report.usage = cook::usage_report(*usage, *selection, usage_lenient, scripts.pages.size(), scripts.left_cold);
  if (!errors.empty()) return fail();

  set.set_scripts_identity({jit::jit_build_id(), compiler->compiler->fingerprint()});
  for (const auto& record : materials) set.add_material(record);
  for (const auto& s : project.scripts) set.add_program(s.file, jit::serialize_program(s.program));
  for (auto& [id, bytes] : scripts.pages) set.add_page(id, std::move(bytes));
  for (auto& [file, bytes] : textures.files) set.add_texture(file, std::move(bytes));
  for (auto& t : textures.target_files) set.add_texture(t.file, std::move(t.tx), t.target);
  if (usage) set.set_usage_sha256(usage->sha256);
  if (usage && !unchanged) {
    // The recorded pipelines of what ships, in their order: the player makes them before its first frame.
    for (const auto& target : targets) {
      std::set<std::string> shipped;
      for (const cook::VariantResult& r : target.results)
        shipped.insert(runtime::variant_id(target.target.id(), r.planned->key.name()));
      std::vector<usage::PipelineUse> pipelines;
      for (const auto& p : usage->record.pipelines)
        if (p.target == target.target.id() && shipped.count(p.variant)) pipelines.push_back(p);
      if (!pipelines.empty()) set.add_pipelines(target.target.id(), pipelines);
    }
  }
  runtime::ManifestSigner signer;
  if (sign_key)
    signer = [&sign_key](std::string_view text) -> Result<runtime::ManifestSignature> {
      auto signature = sign_key->sign(std::as_bytes(std::span(text)));
      if (!signature) return signature.error();
      return runtime::ManifestSignature{sign_key->public_key().id(), *signature};
    };
  stage_started = Clock::now();
  runtime::Manifest written;
  if (auto committed = set.commit(out, signer, &written); !committed) {
    errors.add(committed.error().message);
    return fail();
  }

  // What the packs were made from, for the next cook into --out; without it that cook builds them
  // again, so a failure here costs time, never correctness. The records name the packs this
  // commit wrote. A kept pack's record names it already.
  const auto say = [](const Status& recorded) {
    if (!recorded) std::fprintf(stderr, "cook: %s\n", recorded.error().message.c_str());
  };
  const auto written_pack = [&](runtime::PackKind kind) {
    auto it = written.packs.find(kind);
    return it == written.packs.end() ? runtime::ManifestPack{} : it->second;  // none: no file, a record of nothing
  };
  // A kept pack proved by reading it records its identity only now: a cook that fails writes
  // nothing into its output directory.
  if (unchanged) cook::write_pending_identity(out, unchanged->identity);
  if (kept_textures) cook::write_pending_identity(out, kept_textures->identity);
  if (!kept_textures)
    say(cook::record_textures_inputs(
        out, written_pack(runtime::PackKind::kTextures),
        cook::cooked_textures_inputs(project.root, project.textures, project.settings.targets, conversions, encodings,
                                     textures),
        *report.textures));
  if (!unchanged) {
    // A pack whose variants warned is never kept, so that every cook of it says the warnings again.
    const bool warned = report.warnings && !report.warnings->empty();
    const runtime::ManifestPack shaders_pack = written_pack(runtime::PackKind::kShaders);
    say(cook::record_shaders_inputs(out, shaders_pack, warned ? std::nullopt : inputs));
    say(cook::record_shaders_entries(out, shaders_pack, targets));
  }
  report.stage_ms.commit = ms_since(stage_started);
  if (sign_key) report.signed_by = sign_key->public_key().id();
  bool previews_failed = false;
  stage_started = Clock::now();
  if (args.has("--previews")) {
    report.previews.emplace();
    if (auto previews = cook::write_previews(out, config, cache_store.get(), *report.previews); !previews) {
      // The set is written and stays; the pictures asked for are missing, so the cook fails.
      std::fprintf(stderr, "cook: previews failed: %s\n", previews.error().message.c_str());
      report.previews = cook::PreviewsReport{.failed = previews.error().message};
      previews_failed = true;
    }
    report.stage_ms.previews = ms_since(stage_started);
  }
  if (cache_store) cache_store->flush();  // the remote has what this cook made before it is counted
  report.remote = remote_report(cache_store.get());
  report.errors = nlohmann::json::array();
  report.error_count = 0;
  report.wall_ms = ms_since(started);
  const bool reported = cook::write_report(report_file, report);
  // When the caches grew by this cook, the cap and the build limit hold over every kind again. A
  // cook that wrote nothing skips the walk over every entry: it could not have passed the cap.
  if (cache_store && cache_store->stats().writes > 0) (void)cache_store->prune();
  if (args.json)
    std::printf("%s\n", cook::report_text(report).c_str());
  else
    for (const auto& line : cook::summary_lines(report, out)) std::printf("%s\n", line.c_str());
  return reported && !previews_failed ? kExitOk : kExitFailed;
}

}  // namespace kiln::cli
