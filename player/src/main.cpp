// `kiln-player <cooked dir> [--cache-root DIR] [--json]`: the packaged runtime. Links engine/runtime,
// the interpreter and the page-code loader (engine/jit), materials and textures — neither glslang
// nor LLVM. Loads the packs, resolves every material's variants, runs the cooked scripts (compiled
// pages from the cook's page cache, the interpreter for the rest) and checks the textures through
// the tile cache, then prints a short report. It compiles nothing.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kiln/cache/hash.h"
#include "kiln/core/config.h"
#include "kiln/jit/aot_pages.h"
#include "kiln/jit/host_features.h"
#include "kiln/jit/program_io.h"
#include "kiln/jit/vm.h"
#include "kiln/runtime/pack.h"
#include "kiln/textures/sampler.h"

using namespace kiln;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// The compiled pages the cook put into the scripts pack.
class PackPages final : public jit::AotSource {
 public:
  explicit PackPages(const runtime::Pack& pack) : pack_(pack) {}
  std::optional<jit::StoredPage> find(std::span<const std::uint32_t> page, std::span<const std::uint16_t> entries,
                                      jit::abi::JitMode mode) override {
    const std::string name = jit::aot_page_name(page, mode);
    auto entry = pack_.find(name);
    if (!entry || !entry->has_value()) return std::nullopt;  // damaged or absent: the page is interpreted
    auto code = jit::decode_aot_page(**entry, page, pack_.path().string() + ": " + name);
    if (!code || !code->has_value()) return std::nullopt;
    if (!std::includes((*code)->entries.begin(), (*code)->entries.end(), entries.begin(), entries.end())) return std::nullopt;
    return std::move(**code);
  }

 private:
  const runtime::Pack& pack_;
};

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int fail(const std::string& message) {
  std::fprintf(stderr, "kiln-player: %s\n", message.c_str());
  return 1;
}

std::string text_of(std::span<const std::byte> bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }

}  // namespace

int main(int argc, char** argv) {
  const auto started = Clock::now();
  ConfigInputs inputs;
  inputs.env = ConfigInputs::process_env();
  std::string cooked;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") json = true;
    else if (arg == "--cache-root" && i + 1 < argc) inputs.flags.emplace_back(arg, argv[++i]);
    else if (arg.rfind("--", 0) != 0 && cooked.empty()) cooked = arg;
    else {
      std::fprintf(stderr, "usage: kiln-player <cooked dir> [--cache-root DIR] [--json]\n");
      return 2;
    }
  }
  if (cooked.empty()) {
    std::fprintf(stderr, "usage: kiln-player <cooked dir> [--cache-root DIR] [--json]\n");
    return 2;
  }
  auto config = load_config(inputs);
  if (!config) return fail(config.error().message);

  auto shaders = runtime::Pack::open(fs::path(cooked) / "shaders.pack", runtime::PackKind::kShaders);
  if (!shaders) return fail(shaders.error().message);
  auto scripts = runtime::Pack::open(fs::path(cooked) / "scripts.pack", runtime::PackKind::kScripts);
  if (!scripts) return fail(scripts.error().message);
  auto texture_pack = runtime::Pack::open(fs::path(cooked) / "textures.pack", runtime::PackKind::kTextures);
  if (!texture_pack) return fail(texture_pack.error().message);

  // Materials: every variant each one names must be in the pack.
  std::size_t materials = 0, variants = 0;
  for (const std::string& name : (*shaders)->names()) {
    if (name.rfind("material:", 0) != 0) continue;
    auto entry = (*shaders)->find(name);
    if (!entry || !entry->has_value()) return fail(entry ? name + ": missing" : entry.error().message);
    const auto material = nlohmann::json::parse(text_of(**entry), nullptr, false);
    if (material.is_discarded()) return fail((*shaders)->path().string() + ": entry '" + name + "' is not JSON");
    for (const auto& v : material["variants"]) {
      const std::string variant = v.get<std::string>();
      auto found = (*shaders)->find(variant);
      if (!found) return fail(found.error().message);
      if (!found->has_value())
        return fail((*shaders)->path().string() + ": no variant " + variant + " (" +
                    runtime::pack_key(variant).hex().substr(0, 12) + "), asked for by " + name.substr(9));
      ++variants;
    }
    ++materials;
  }

  // Scripts: compiled pages from the pack (cooked by the same build of the code generator).
  const std::string identity = (*scripts)->identity();  // "scripts <build-id> <fingerprint>"
  const std::string build = identity.size() > 8 ? identity.substr(8, identity.find(' ', 8) - 8) : "";
  PackPages shipped(**scripts);
  std::unique_ptr<jit::JitRuntime> jit;
  const auto missing = jit::missing_cpu_features(identity);
  if (!missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : " ") + m;
    std::fprintf(stderr, "kiln-player: the scripts were compiled for CPU features this machine lacks (%s): they run interpreted\n",
                 names.c_str());
  } else if (build == jit::jit_build_id()) {
    auto made = jit::JitRuntime::create({.aot = &shipped, .hot_threshold = 1});
    if (made) jit = std::move(*made);
    else std::fprintf(stderr, "kiln-player: compiled pages off: %s\n", made.error().message.c_str());
  } else {
    std::fprintf(stderr, "kiln-player: scripts cooked by build %s, this is %s: they run interpreted\n", build.c_str(),
                 jit::jit_build_id());
  }
  nlohmann::json script_results = nlohmann::json::array();
  bool scripts_ok = true;
  for (const std::string& name : (*scripts)->names()) {
    if (name.rfind("page:", 0) == 0) continue;  // compiled pages, served to the runtime
    auto entry = (*scripts)->find(name);
    if (!entry || !entry->has_value()) return fail(entry ? name + ": missing" : entry.error().message);
    auto program = jit::deserialize_program(**entry, (*scripts)->path().string() + ": " + name);
    if (!program) return fail(program.error().message);
    std::string output;
    jit::Vm vm(*program, {.instruction_budget = 1'000'000'000, .jit = jit.get()});
    vm.set_output([&](std::string_view line) { output += line; });
    const auto t0 = Clock::now();
    const Status ran = vm.run();
    const std::string digest = cache::hex64(cache::xxh3_64(output)).substr(0, 12);
    script_results.push_back({{"script", name}, {"ok", bool(ran)}, {"ms", ms_since(t0)}, {"lines", std::count(output.begin(), output.end(), '\n')},
                              {"output_digest", digest}, {"error", ran ? "" : ran.error().message}});
    scripts_ok = scripts_ok && ran;
  }
  const jit::JitStats jit_stats = jit ? jit->stats() : jit::JitStats{};

  // Textures: each through the tile cache; the centre sample must match the pixels of its level 0.
  const fs::path texture_dir = texture_cache_dir(config->config);
  textures::TileCache tiles({.memory_budget_bytes = config->config.texture_memory_max_bytes, .conversion_dir = texture_dir});
  std::size_t textures_checked = 0;
  for (const std::string& name : (*texture_pack)->names()) {
    auto entry = (*texture_pack)->find(name);
    if (!entry || !entry->has_value()) return fail(entry ? name + ": missing" : entry.error().message);
    // libtiff reads files: the .tx goes to the cache root once per content.
    const fs::path tx = texture_dir / ("pack-" + cache::xxh3_128(text_of(**entry)).hex() + ".tx");
    std::error_code ec;
    if (!fs::exists(tx, ec)) {
      fs::create_directories(texture_dir, ec);
      std::ofstream(tx, std::ios::binary).write(reinterpret_cast<const char*>((*entry)->data()), std::streamsize((*entry)->size()));
    }
    auto image = tiles.open(tx);
    if (!image) return fail(name + ": " + image.error().message);
    textures::TextureSampler sampler(tiles, *image);
    const auto& l0 = (*image)->info().levels[0];
    auto centre = sampler.nearest(0.5f, 0.5f);
    auto texel = sampler.texel(0, int(l0.width / 2), int(l0.height / 2));
    if (!centre || !texel || std::abs((*centre)[0] * 255.0f - (*texel)[0]) > 0.5f)
      return fail(name + ": the centre sample does not match its texel");
    ++textures_checked;
  }

  const double startup = ms_since(started);
  if (json) {
    nlohmann::json out = {{"materials", materials},
                          {"variants_resolved", variants},
                          {"scripts", script_results},
                          {"pages_loaded", jit_stats.loaded},
                          {"pages_interpreted", jit_stats.interpreted},
                          {"compiles", jit_stats.compiled},
                          {"textures_checked", textures_checked},
                          {"startup_ms", startup}};
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("player: %zu materials, %zu variants resolved\n", materials, variants);
    for (const auto& s : script_results)
      std::printf("player: %s %s in %.1f ms (%lld lines, output %s)\n", s["script"].get<std::string>().c_str(),
                  s["ok"].get<bool>() ? "ran" : ("failed: " + s["error"].get<std::string>()).c_str(),
                  s["ms"].get<double>(), static_cast<long long>(s["lines"].get<std::ptrdiff_t>()),
                  s["output_digest"].get<std::string>().c_str());
    std::printf("player: script pages %llu loaded compiled, %llu interpreted, %llu compiles\n",
                static_cast<unsigned long long>(jit_stats.loaded), static_cast<unsigned long long>(jit_stats.interpreted),
                static_cast<unsigned long long>(jit_stats.compiled));
    std::printf("player: %zu textures checked; ready in %.1f ms\n", textures_checked, startup);
  }
  return scripts_ok ? 0 : 1;
}
