#include "kiln/cache/cache_kinds.h"

#include <algorithm>
#include <array>

namespace kiln::cache {
namespace {

constexpr std::array kKinds = {
    CacheKind{"shaders", "compiled shader variants"},
    CacheKind{"jit", "compiled script pages"},
    CacheKind{"textures", "textures converted to .tx"},
};

}  // namespace

std::span<const CacheKind> cache_kinds() { return kKinds; }

bool is_cache_kind(std::string_view name) {
  return std::any_of(kKinds.begin(), kKinds.end(), [&](const CacheKind& k) { return k.name == name; });
}

}  // namespace kiln::cache
