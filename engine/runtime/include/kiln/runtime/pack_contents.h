#pragma once
// What a cooked set holds and how its entries are named: the one place the cook, the player, the
// tests and an engine embedding Kiln agree on it.
//
//   shaders.pack   variant:<target>:<shader>|<pass>|<keywords>   a VariantRecord (variant_record.h)
//                  material:<file>                      a MaterialRecord (material_record.h)
//                  pipelines:<target>                   the pipelines a usage record saw made, in order
//                                                       (a usage record of pipelines only: usage_record.h)
//   scripts.pack   program:<file>                       serialised bytecode (jit/program_io.h)
//                  page:<page hash>-<mode>              a compiled page (jit/aot_pages.h)
//   textures.pack  texture:<file>                       a .tx file, read in place
//
// Files are named relative to the project root, with '/' separators. Each pack's identity says
// what it was cooked for: the shaders pack's lists its targets ("spirv-vulkan1.0", "hlsl-vulkan1.0",
// the first is the default) with the variant cache namespace of each; the scripts pack's names the
// code generator build and its fingerprint.
//
// Thread-safety: pure functions.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::runtime {

enum class EntryKind { kVariant, kMaterial, kProgram, kPage, kTexture, kPipelines };

// "variant:", "material:", ...: the prefix of every entry of that kind.
std::string_view entry_prefix(EntryKind kind);
// The entry name of `id` (a variant name, a project file, a page id).
std::string entry_name(EntryKind kind, std::string_view id);
// The id inside `name` when it is an entry of `kind`.
std::optional<std::string_view> entry_id(EntryKind kind, std::string_view name);

// The id of a variant's entry: "<target>:<variant name>".
std::string variant_id(std::string_view target, std::string_view variant_name);
// Its target and variant name (targets hold no ':'); nothing for an id without a target.
std::optional<std::pair<std::string_view, std::string_view>> split_variant_id(std::string_view id);

struct ShadersIdentity {
  std::vector<std::pair<std::string, std::string>> targets;  // target -> namespace id, default first
};
std::string encode_shaders_identity(const ShadersIdentity& identity);
std::optional<ShadersIdentity> decode_shaders_identity(std::string_view text);

// The scripts pack's identity: which build of the code generator compiled its pages, with which
// settings (the page compiler's fingerprint, CPU features included).
struct ScriptsIdentity {
  std::string build_id;
  std::string fingerprint;
};
std::string encode_scripts_identity(const ScriptsIdentity& identity);
std::optional<ScriptsIdentity> decode_scripts_identity(std::string_view text);

inline constexpr std::string_view kTexturesIdentity = "textures tx-writer-1";

}  // namespace kiln::runtime
