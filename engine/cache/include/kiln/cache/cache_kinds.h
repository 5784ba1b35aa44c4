#pragma once
// The kinds of entries the persistent cache holds, each under <root>/<kind>/. A store opens
// namespaces, prunes, verifies and counts only in these directories; anything else under the root
// is left alone.

#include <span>
#include <string>
#include <string_view>

namespace kiln::cache {

struct CacheKind {
  std::string_view name;   // the directory under the root
  std::string_view holds;  // for people: "compiled shader variants"
  // Its entries may travel through a remote level to other machines. Machine code (script pages)
  // and a driver's pipeline data stay on the machine that made them.
  bool shared = false;
};

std::span<const CacheKind> cache_kinds();
// Their names for people: "shaders, jit, textures or pipelines".
std::string cache_kind_names();
bool is_cache_kind(std::string_view name);
int cache_kind_index(std::string_view name);  // its place in cache_kinds(), or -1

}  // namespace kiln::cache
