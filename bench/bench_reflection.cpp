// Reading a stored reflection (what a cook does for every variant it copies or takes from the cache,
// and a player for every variant it loads): decode_reflection, which reads the text flat where it
// can, against the full reader (nlohmann's DOM) it falls back to, interleaved in one process, over
// the stage reflections of every variant the sample materials use.
//
//   bench_reflection [assets]   -> per-stage microseconds of each reader and their ratio

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "../engine/runtime/src/reflection_document.h"
#include "kiln/materials/material.h"
#include "kiln/runtime/reflection.h"
#include "kiln/shadercache/shader_library.h"

namespace fs = std::filesystem;
using namespace kiln;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const fs::path assets = argc > 1 ? fs::path(argv[1]) : fs::path(KILN_SOURCE_DIR) / "assets";
  shadercache::ShaderLibrary library({.root = assets});
  std::vector<std::string> texts;
  for (const auto& entry : fs::directory_iterator(assets / "materials")) {
    auto m = materials::load_material(entry.path().string());
    if (!m) return std::fprintf(stderr, "%s\n", m.error().message.c_str()), 1;
    auto p = library.program(m->shader);
    if (!p) return std::fprintf(stderr, "%s\n", p.error().message.c_str()), 1;
    for (const auto& pass : (*p)->declaration.passes) {
      auto v = library.variant(m->shader, pass, m->keywords);
      if (!v) return std::fprintf(stderr, "%s\n", v.error().message.c_str()), 1;
      for (const auto& stage : (*v)->stages) texts.push_back(stage.reflection_text);
    }
  }
  std::size_t bytes = 0;
  for (const auto& t : texts) bytes += t.size();
  // Rounds of every text through each reader, the two alternating so that a slower moment of the
  // machine falls on both.
  constexpr int kRounds = 400;
  double flat_s = 0, whole_s = 0;
  std::size_t sink = 0;
  for (int round = 0; round < kRounds; ++round) {
    auto start = Clock::now();
    for (const auto& t : texts) sink += runtime::decode_reflection(t, "bench")->bindings.size();
    flat_s += std::chrono::duration<double>(Clock::now() - start).count();
    start = Clock::now();
    for (const auto& t : texts) sink += runtime::decode_reflection_document(t, "bench")->bindings.size();
    whole_s += std::chrono::duration<double>(Clock::now() - start).count();
  }
  const double per = 1e6 / (double(kRounds) * double(texts.size()));
  std::printf("stage reflections: %zu (%.0f bytes each on average), %d rounds%s\n", texts.size(),
              double(bytes) / double(texts.size()), kRounds, sink == 0 ? " " : "");
  std::printf("decode_reflection (flat):   %7.2f us per stage\n", flat_s * per);
  std::printf("full reader (nlohmann DOM): %7.2f us per stage\n", whole_s * per);
  std::printf("  ratio full / flat:        %7.2fx\n", whole_s / flat_s);
  return 0;
}
