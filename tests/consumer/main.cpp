// `consumer <cooked dir> <material>`: loads one cooked material and the variants of its passes
// through Kiln's runtime reader, as a game would, and prints one line per pass.
#include <cstdio>
#include <memory>

#include "kiln/runtime/cooked_set.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer <cooked dir> <material>\n");
    return 2;
  }
  auto set = kiln::runtime::CookedSet::open(argv[1]);
  if (!set) {
    std::fprintf(stderr, "consumer: %s\n", set.error().message.c_str());
    return 1;
  }
  auto material = (*set)->material(argv[2]);
  if (!material) {
    std::fprintf(stderr, "consumer: %s\n", material.error().message.c_str());
    return 1;
  }
  std::printf("%s: shader %s, %zu passes\n", material->file.c_str(), material->shader.c_str(), material->passes.size());
  for (const auto& pass : material->passes) {
    auto variant = (*set)->variant(pass.variant);
    if (!variant) {
      std::fprintf(stderr, "consumer: %s\n", variant.error().message.c_str());
      return 1;
    }
    std::size_t words = 0;
    for (const auto& stage : variant->stages) words += stage.spirv.size();
    std::printf("pass %s: variant %s, %zu stages, %zu SPIR-V words\n", pass.pass.c_str(), pass.variant.c_str(),
                variant->stages.size(), words);
  }
  return 0;
}
