#include "cook/unchanged_textures.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "cook/cooked_manifest.h"
#include "cook/kept_pack.h"
#include "kiln/core/input_limits.h"
#include "kiln/runtime/pack.h"
#include "kiln/textures/texture_path.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

// The first line of the record: what it is and the build that made its pack.
std::string record_header() { return std::string("kiln-textures-inputs 1 ") + KILN_TEXTURES_PACK_BUILD_ID; }

// What `t` would be made from now: the artist's .tx beside the source when there is one (the rule
// TextureConversions follows), else the source; nullopt when it does not read.
std::optional<TextureMadeFrom> made_from_now(const fs::path& root, const project::TextureInput& t) {
  const auto resolved = textures::resolve_texture_path(root / t.file);
  auto bytes = read_input_bytes(resolved.file, limits::kDecodedImageBytes, "texture");
  if (!bytes) return std::nullopt;
  return TextureMadeFrom{resolved.tiled ? resolved.file : fs::path(),
                         cache::Xxh3Stream().update(std::span(bytes->data(), bytes->size())).digest128()};
}

// The digest over what each of `sources` is made from (nullopt for one: none) and how it ships.
std::optional<cache::Hash128> inputs_digest(const fs::path& root, std::span<const project::TextureInput> sources,
                                            const std::vector<runtime::ShaderTarget>& targets,
                                            const TextureConversions& conversions, const TextureEncodings& encodings,
                                            std::span<const std::optional<TextureMadeFrom>> made_from) {
  if (!conversions.cache_namespace() || !encodings.cache_namespace()) return std::nullopt;
  cache::Xxh3Stream digest;
  digest.update(record_header()).update("\n").update(std::to_string(runtime::kPackVersion)).update("\n");
  digest.update("conversions:").update(conversions.cache_namespace()->id).update("\n");
  digest.update("encodings:").update(encodings.cache_namespace()->id).update("\n");
  for (const auto& t : targets)
    digest.update("target:")
        .update(t.id())
        .update(" max_size:")
        .update(std::to_string(t.max_size))
        .update(" ships:")
        .update(std::to_string(int(t.textures)))
        .update(" quality:")
        .update(std::to_string(int(t.texture_quality)))
        .update("\n");
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (!made_from[i]) return std::nullopt;
    const project::TextureInput& t = sources[i];
    std::string line = "texture:" + t.file + " settings:" + textures::describe_settings(t.settings);
    if (t.settings.gpu_format.bc) line += " bc:" + std::string(textures::gpu_format_name(*t.settings.gpu_format.bc));
    if (t.settings.gpu_format.astc)
      line += " astc:" + std::string(textures::gpu_format_name(*t.settings.gpu_format.astc));
    const fs::path& tx = made_from[i]->artist_tx;
    line += (tx.empty() ? std::string(" source") : " tx:" + tx.lexically_relative(root).generic_string()) + "=" +
            made_from[i]->digest.hex() + "\n";
    digest.update(line);
  }
  return digest.digest128();
}

nlohmann::json counts_json(const TextureCounts& c) {
  return {{"from_tx", c.from_tx},
          {"target_copies", c.target_copies},
          {"formats", c.formats},
          {"gpu_bytes", c.gpu_bytes},
          {"rgba8_gpu_bytes", c.rgba8_gpu_bytes}};
}

std::optional<TextureCounts> counts_of(const std::string& text, std::size_t files) {
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) return std::nullopt;
  try {
    TextureCounts c;
    c.files = c.unchanged = files;
    c.from_tx = json.at("from_tx").get<std::size_t>();
    c.target_copies = json.at("target_copies").get<std::size_t>();
    c.formats = json.at("formats").get<std::map<std::string, std::size_t>>();
    c.gpu_bytes = json.at("gpu_bytes").get<std::uint64_t>();
    c.rgba8_gpu_bytes = json.at("rgba8_gpu_bytes").get<std::uint64_t>();
    return c;
  } catch (const nlohmann::json::exception&) {  // a record another build wrote: none
    return std::nullopt;
  }
}

}  // namespace

std::optional<cache::Hash128> textures_inputs(const fs::path& root, std::span<const project::TextureInput> sources,
                                              const std::vector<runtime::ShaderTarget>& targets,
                                              const TextureConversions& conversions, const TextureEncodings& encodings,
                                              core::WorkerPool& pool) {
  if (!conversions.cache_namespace() || !encodings.cache_namespace()) return std::nullopt;
  std::vector<std::optional<TextureMadeFrom>> made_from(sources.size());
  pool.parallel_for(sources.size(), [&](std::size_t i) { made_from[i] = made_from_now(root, sources[i]); });
  return inputs_digest(root, sources, targets, conversions, encodings, made_from);
}

std::optional<cache::Hash128> cooked_textures_inputs(const fs::path& root,
                                                     std::span<const project::TextureInput> sources,
                                                     const std::vector<runtime::ShaderTarget>& targets,
                                                     const TextureConversions& conversions,
                                                     const TextureEncodings& encodings, const CookedTextures& cooked) {
  if (cooked.made_from.size() != sources.size()) return std::nullopt;
  return inputs_digest(root, sources, targets, conversions, encodings, cooked.made_from);
}

std::optional<KeptTexturesPack> unchanged_textures_pack(const fs::path& out, const cache::Hash128& inputs) {
  auto text = read_input_file(out / kTexturesInputsFile, 1 << 20, "textures inputs");
  if (!text) return std::nullopt;
  std::istringstream lines{std::string(*text)};
  std::string header, pack_line, counts_line, file, digest, pack_digest;
  std::size_t files = 0;
  if (!std::getline(lines, header) || header != record_header()) return std::nullopt;
  if (!std::getline(lines, pack_line) || !std::getline(lines, counts_line)) return std::nullopt;
  if (!(std::istringstream(pack_line) >> file >> digest >> pack_digest >> files) || digest != inputs.hex())
    return std::nullopt;
  const auto named = cooked_pack(out, runtime::PackKind::kTextures);
  if (!named || named->file != file) return std::nullopt;
  auto counts = counts_of(counts_line, files);
  if (!counts) return std::nullopt;
  const auto proof = prove_kept_pack(out, named->file, named->bytes, pack_digest, kTexturesIdentityFile);
  if (!proof) return std::nullopt;
  return KeptTexturesPack{*named, proof->by_identity, *counts, proof->identity};
}

Status record_textures_inputs(const fs::path& out, const runtime::ManifestPack& written_pack,
                              const std::optional<cache::Hash128>& inputs, const TextureCounts& counts) {
  return write_pack_record(out, kTexturesInputsFile, record_header(), written_pack.file, inputs,
                           " " + std::to_string(counts.files), counts_json(counts).dump() + "\n");
}

}  // namespace kiln::cook
