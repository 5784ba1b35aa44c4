// `kiln-player <cooked dir> [--json | --quiet] [--stats] [--validate] [--require-gpu] [--trust KEY.pub]
//  [--materials PATTERN] [--record-usage FILE]`:
// the packaged runtime. Links engine/runtime, the interpreter and the page-code loader (engine/jit), materials,
// textures and engine/render (the Vulkan loader) — neither glslang nor LLVM. Opens the cooked set
// through its manifest (under player.trusted_keys, only a set signed by one of them, before anything
// of it is used), checks that every variant and texture a material names is in it, runs the
// cooked scripts (compiled pages from the scripts pack, the interpreter for the rest; what they
// print is printed), checks the textures through the tile cache, creates every material's
// pipelines on the Vulkan device through the persisted pipeline cache (without a device: one line
// saying so), then prints a short report. It compiles no shader and no script.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <variant>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "kiln/core/text.h"
#include "kiln/cache/hash.h"
#include "kiln/core/config.h"
#include "kiln/jit/host_features.h"
#include "kiln/jit/program_io.h"
#include "kiln/jit/vm.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/textures/compressed_texture.h"
#include "kiln/textures/sampler.h"
#include "kiln/runtime/pack_contents.h"
#include "kiln/trust/trust_policy.h"
#include "kiln/usage/usage_recorder.h"
#include "gpu.h"
#include "pack_pages.h"
#include "played_materials.h"
#include "player_scripts.h"

using namespace kiln;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int fail(const std::string& message) {
  std::fprintf(stderr, "kiln-player: %s\n", message.c_str());
  return 1;
}

// The runtime that serves the shipped pages, or nullptr (the scripts run interpreted) when they
// were compiled by another build or for CPU features this machine lacks.
std::unique_ptr<jit::JitRuntime> shipped_code_runtime(const runtime::CookedSet& set, player::PackPages& pages) {
  const auto identity = set.scripts_identity();
  if (!identity) {
    std::fprintf(stderr, "kiln-player: the scripts pack names no code generator build: its scripts run interpreted\n");
    return nullptr;
  }
  if (const auto missing = jit::missing_cpu_features(identity->fingerprint); !missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : " ") + m;
    std::fprintf(
        stderr,
        "kiln-player: the scripts were compiled for CPU features this machine lacks (%s): they run interpreted\n",
        names.c_str());
    return nullptr;
  }
  if (identity->build_id != jit::jit_build_id()) {
    std::fprintf(stderr, "kiln-player: scripts cooked by build %s, this is %s: they run interpreted\n",
                 identity->build_id.c_str(), jit::jit_build_id());
    return nullptr;
  }
  auto made = jit::JitRuntime::create({.aot = &pages, .hot_threshold = 1});
  if (!made) {
    std::fprintf(stderr, "kiln-player: compiled pages off: %s\n", made.error().message.c_str());
    return nullptr;
  }
  return std::move(*made);
}

struct Options {
  std::string cooked;
  bool json = false;
  bool quiet = false;  // scripts' output as digests only
  bool stats = false;
  std::vector<std::string> materials;  // patterns: the materials played (all when none)
  std::string record_usage;            // where to write the usage record; empty: none
  player::GpuOptions gpu;
  ConfigInputs config;
};

// The options, or the exit code when parsing decided it: 0 after --help or --version, 2 on a usage
// error (named on standard error).
std::variant<Options, int> parse_args(int argc, char** argv) {
  Options o;
  o.config.env = ConfigInputs::process_env();
  CLI::App app("kiln-player: runs a cooked set as the game does: materials, scripts, textures", "kiln-player");
  app.set_version_flag("--version", std::string("kiln-player ") + KILN_VERSION);
  app.add_option("cooked", o.cooked, "the cooked directory (what kiln cook --out wrote)")->required();
  app.add_option_function<std::string>(
         "--cache-root", [&o](const std::string& v) { o.config.flags.emplace_back("--cache-root", v); },
         "the cache root (the player keeps only the driver's pipeline cache there: render.pipeline_cache)")
      ->type_name("DIR");
  for (const SettingInfo& s : config_settings()) {
    if (s.name.rfind("render.", 0) != 0 && s.name.rfind("player.", 0) != 0) continue;
    const std::string flag = s.flag;
    if (s.type == "paths") {  // each flag adds one
      app.add_option_function<std::vector<std::string>>(
             flag,
             [&o, flag](const std::vector<std::string>& values) {
               for (const auto& v : values) o.config.flags.emplace_back(flag, v);
             },
             s.help + " [env " + s.env + "]")
          ->allow_extra_args(false)
          ->type_name("PATH");
      continue;
    }
    app.add_option_function<std::string>(
           flag, [&o, flag](const std::string& v) { o.config.flags.emplace_back(flag, v); },
           s.help + " [env " + s.env + "]")
        ->type_name(s.type);
  }
  app.add_option_function<std::vector<std::string>>(
         "--trust",
         [&o](const std::vector<std::string>& values) {
           for (const auto& v : values) o.config.flags.emplace_back("--player-trusted-keys", v);
         },
         "play only a set signed by this public key (kiln key generate's .pub); repeat for several (as "
         "player.trusted_keys)")
      ->allow_extra_args(false)
      ->type_name("KEY.pub");
  app.add_flag("--stats", o.stats, "pipeline and pipeline-cache statistics");
  app.add_option("--materials", o.materials,
                 "play only the materials whose project file matches this pattern (\"materials/level1/*\"); "
                 "repeat for several")
      ->allow_extra_args(false)
      ->type_name("PATTERN");
  app.add_option("--record-usage", o.record_usage,
                 "record the variants, pipelines, script pages and texture levels this run uses into FILE (kiln "
                 "usage show reads it; kiln cook --usage ships what it names)")
      ->type_name("FILE");
  auto* frames =
      app.add_option("--frames", o.gpu.frames, "frames of the sample scene to render (each material on a lit sphere)")
          ->check(CLI::Range(0, 1000000))
          ->type_name("N");
  app.add_option("--render", o.gpu.render_dir,
                 "write the last frame's pictures here: one PNG per material and frame.png (one frame unless "
                 "--frames says more)")
      ->type_name("DIR");
  app.add_flag("--validate", o.gpu.validate,
               "enable the Vulkan validation layer; any message it prints fails the run (as render.validate)");
  app.add_flag("--require-gpu", o.gpu.require_gpu, "no usable Vulkan device is a failure (exit 1), not a note");
  auto* json = app.add_flag("--json", o.json, "one JSON object on standard output, for tools");
  app.add_flag("--quiet", o.quiet, "a digest of each script's output instead of the output")->excludes(json);
  app.footer(
      "example: kiln-player build/cooked --stats\nExit codes: 0 success, 1 a check, a script or the GPU failed "
      "(or no device with --require-gpu), 2 usage error.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!o.gpu.render_dir.empty() && frames->count() == 0) o.gpu.frames = 1;  // pictures need a frame
  return o;
}

struct MaterialsChecked {
  std::size_t materials = 0, variants = 0;
};

// Each material decodes, and every variant and texture it names is in the set; the variants of the
// materials played are resolved (and recorded).
Result<MaterialsChecked> check_materials(const runtime::CookedSet& set, const player::PlayedMaterials& played,
                                         const std::string& target, usage::UsageRecorder* recorder) {
  KILN_TRY(set.check());
  MaterialsChecked out;
  const auto files = played.materials();
  out.materials = files.size();
  for (const auto& file : files) {
    const auto material = set.material(file);
    if (!material) return material.error();
    out.variants += material->passes.size();
    if (recorder)
      for (const auto& pass : material->passes) recorder->variant(runtime::variant_id(target, pass.variant));
  }
  return out;
}

Status write_record(const std::string& file, const usage::UsageRecorder& recorder, bool json) {
  const usage::UsageRecord record = recorder.record();
  KILN_TRY(usage::write_usage(file, record));
  if (!json)
    std::printf("player: usage recorded in %s (%s, %s, %s, %s)\n", file.c_str(),
                count_of(record.variants.size(), "variant").c_str(),
                count_of(record.pipelines.size(), "pipeline").c_str(), count_of(record.pages.size(), "page").c_str(),
                count_of(record.textures.size(), "texture").c_str());
  return {};
}

// Each texture read in place from the mapped pack through the tile cache (nothing is extracted: the
// player needs no writable directory); the centre sample must match the pixels of its level 0. A
// block-compressed texture is checked whole as a record (its blocks are for the GPU).
Result<std::size_t> check_textures(const runtime::CookedSet& set, const Config& config) {
  textures::TileCache tiles({.memory_budget_bytes = config.texture_memory_max_bytes});
  std::size_t checked = 0;
  const std::string texture_pack = set.pack(runtime::PackKind::kTextures).path().string();
  for (const std::string& name : set.ids(runtime::EntryKind::kTexture)) {
    auto entry = set.texture(name);
    if (!entry) return entry.error();
    const std::string where = texture_pack + ": " + runtime::entry_name(runtime::EntryKind::kTexture, name);
    // A block-compressed texture goes to the GPU as it is: its record must hold together.
    if (textures::is_compressed_texture(*entry)) {
      if (auto record = textures::decode_compressed_texture(*entry, where); !record) return record.error();
      ++checked;
      continue;
    }
    auto image = tiles.open_memory(where, *entry);
    if (!image) return image.error();
    textures::TextureSampler sampler(tiles, *image);
    const auto& l0 = (*image)->info().levels[0];
    auto centre = sampler.nearest(0.5f, 0.5f);
    auto texel = sampler.texel(0, int(l0.width / 2), int(l0.height / 2));
    if (!centre || !texel || std::abs((*centre)[0] * 255.0f - (*texel)[0]) > 0.5f)
      return make_error(name + ": the centre sample does not match its texel");
    ++checked;
  }
  return checked;
}

void print_report(bool json, bool stats, const std::string& signer, const MaterialsChecked& materials,
                  const nlohmann::json& scripts, const jit::JitStats& jit_stats, std::size_t pages_damaged,
                  std::size_t textures_checked, const player::GpuReport& gpu, double startup_ms) {
  if (json) {
    nlohmann::json out = {{"signed_by", signer.empty() ? nlohmann::json(nullptr) : nlohmann::json(signer)},
                          {"materials", materials.materials},
                          {"variants_resolved", materials.variants},
                          {"scripts", scripts},
                          {"pages_loaded", jit_stats.loaded},
                          {"pages_interpreted", jit_stats.interpreted},
                          {"pages_damaged", pages_damaged},
                          {"compiles", jit_stats.compiled},
                          {"textures_checked", textures_checked},
                          {"gpu", gpu.to_json()},
                          {"startup_ms", startup_ms}};
    std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  if (!signer.empty()) std::printf("player: the set is signed by key %s, a trusted key\n", signer.c_str());
  std::printf("player: %s, %s resolved\n", count_of(materials.materials, "material").c_str(),
              count_of(materials.variants, "variant").c_str());
  for (const auto& s : scripts)
    std::printf("player: %s %s in %.1f ms (%s of output, digest %s)\n", s["script"].get<std::string>().c_str(),
                s["ok"].get<bool>() ? "ran" : ("failed: " + s["error"].get<std::string>()).c_str(),
                s["ms"].get<double>(), count_of(s["lines"].get<std::size_t>(), "line").c_str(),
                s["output_digest"].get<std::string>().c_str());
  std::printf("player: script pages %llu loaded compiled, %llu interpreted, %llu damaged, %llu compiles\n",
              static_cast<unsigned long long>(jit_stats.loaded), static_cast<unsigned long long>(jit_stats.interpreted),
              static_cast<unsigned long long>(pages_damaged), static_cast<unsigned long long>(jit_stats.compiled));
  std::printf("player: %s checked\n", count_of(textures_checked, "texture").c_str());
  for (const std::string& line : gpu.lines(stats)) std::printf("player: %s\n", line.c_str());
  std::printf("player: ready in %.1f ms\n", startup_ms);
}

}  // namespace

int main(int argc, char** argv) {
  const auto started = Clock::now();
  auto parsed = parse_args(argc, argv);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  const Options* options = &std::get<Options>(parsed);
  if (!options->gpu.render_dir.empty() && options->gpu.frames == 0) {
    std::fprintf(stderr, "kiln-player: --render with --frames 0 draws nothing: give at least one frame\n");
    return 2;
  }
  auto config = load_config(options->config);
  if (!config) return fail(config.error().message);
  auto policy = trust::load_trust_policy(config->config.player_trusted_keys, config->config.player_require_signature);
  if (!policy) return fail(policy.error().message);
  if (policy->require_signature && policy->keys.empty())
    return fail("player.require_signature is on, but player.trusted_keys names no key: no set may play");
  auto opened = runtime::CookedSet::open(options->cooked, *policy);
  if (!opened) return fail(opened.error().message);
  const runtime::CookedSet& set = **opened;
  auto played = player::PlayedMaterials::choose(set, options->materials);
  if (!played) return fail(played.error().message);
  std::optional<usage::UsageRecorder> recorder;
  if (!options->record_usage.empty()) recorder.emplace();
  usage::UsageRecorder* const recording = recorder ? &*recorder : nullptr;

  const std::vector<std::string> targets = set.targets();
  const std::string target = targets.empty() ? std::string() : targets.front();  // the default: what plays
  const auto materials = check_materials(set, *played, target, recording);
  if (!materials) return fail(materials.error().message);
  // Compiled pages come from the scripts pack (cooked by the same build of the code generator).
  player::PackPages pages(set.pack(runtime::PackKind::kScripts), recording);
  const std::unique_ptr<jit::JitRuntime> jit = shipped_code_runtime(set, pages);
  const auto textures_checked = check_textures(set, config->config);
  if (!textures_checked) return fail(textures_checked.error().message);
  player::GpuOptions gpu_options = options->gpu;
  gpu_options.recorder = recording;
  gpu_options.target = target;
  gpu_options.jobs = config->config.jobs;
  auto recorded_pipelines = set.recorded_pipelines();
  if (!recorded_pipelines) return fail(recorded_pipelines.error().message);
  gpu_options.recorded_pipelines = std::move(*recorded_pipelines);
  auto gpu = player::GpuSession::open(*played, config->config, gpu_options);
  if (!gpu) return fail(gpu.error().message);
  // The scripts' engine functions write into the scene's parameter blocks when there is one.
  auto scripts = player::PlayerScripts::load(set, jit.get(), (*gpu)->scene(), config->config.scripts_memory_max_bytes);
  if (!scripts) return fail(scripts.error().message);
  (*scripts)->run_all(!options->json && !options->quiet);
  for (int f = 0; f < options->gpu.frames && (*gpu)->scene(); ++f) {
    const double t = f / 60.0;
    (*scripts)->frame(t);
    if (auto drawn = (*gpu)->render_frame(t); !drawn) return fail(drawn.error().message);
  }
  if (auto finished = (*gpu)->finish(); !finished) return fail(finished.error().message);
  const player::GpuReport& report = (*gpu)->report();
  for (const std::string& message : report.validation_messages)
    std::fprintf(stderr, "kiln-player: %s\n", message.c_str());

  // The record says what this run used, whatever the scripts' outcome.
  if (recorder)
    if (auto written = write_record(options->record_usage, *recorder, options->json); !written)
      return fail(written.error().message);
  print_report(options->json, options->stats, set.verified_signer(), *materials, (*scripts)->results(),
               jit ? jit->stats() : jit::JitStats{}, pages.damaged(), *textures_checked, report, ms_since(started));
  if (!report.available && options->gpu.require_gpu) return fail("no usable Vulkan device (--require-gpu)");
  if (!report.validation_messages.empty())
    return fail(std::to_string(report.validation_messages.size()) + " validation messages (render.validate)");
  return (*scripts)->all_ok() ? 0 : 1;
}
