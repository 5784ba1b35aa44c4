#include "kiln/cache/cache_kinds.h"

#include <algorithm>
#include <array>

namespace kiln::cache {
namespace {

constexpr std::array kKinds = {
    CacheKind{"shaders", "compiled shader variants", true},
    CacheKind{"jit", "compiled script pages", false},
    CacheKind{"textures", "textures converted to .tx", true},
    CacheKind{"pipelines", "Vulkan pipeline caches, one per GPU driver", false},
};

}  // namespace

std::span<const CacheKind> cache_kinds() { return kKinds; }

std::string cache_kind_names() {
  std::string out;
  for (std::size_t i = 0; i < kKinds.size(); ++i)
    out += (i == 0 ? "" : i + 1 == kKinds.size() ? " or " : ", ") + std::string(kKinds[i].name);
  return out;
}

bool is_cache_kind(std::string_view name) { return cache_kind_index(name) >= 0; }

int cache_kind_index(std::string_view name) {
  for (std::size_t i = 0; i < kKinds.size(); ++i)
    if (kKinds[i].name == name) return int(i);
  return -1;
}

}  // namespace kiln::cache
