#include "cook/unchanged_shaders.h"

#include "cook/cooked_manifest.h"
#include "cook/kept_pack.h"

#include <fstream>
#include <sstream>

#include "kiln/core/input_limits.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/pack.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

// The first line of the record: what it is and the build that made its pack.
std::string record_header() { return std::string("kiln-shaders-inputs 2 ") + KILN_SHADERS_PACK_BUILD_ID; }

}  // namespace

std::optional<cache::Hash128> shaders_inputs(const project::Project& project, std::vector<TargetVariants>& targets,
                                             const runtime::ShadersIdentity& identity, const std::string& usage_sha256,
                                             core::WorkerPool& pool) {
  cache::Xxh3Stream digest;
  digest.update(record_header()).update("\n").update(std::to_string(runtime::kPackVersion)).update("\n");
  digest.update("usage:").update(usage_sha256).update("\n");
  digest.update(runtime::encode_shaders_identity(identity)).update("\n");
  bool covered = true;
  for (auto& target : targets) {
    digest.update("target:").update(target.target.id()).update("\n");
    // The keys on the pool (the library answers any thread), then the digest in variant order.
    target.content_keys.assign(project.variants.size(), std::nullopt);
    std::vector<char> uncovered(project.variants.size(), 0);
    pool.parallel_for(project.variants.size(), [&](std::size_t i) {
      auto key = target.library->content_key(project.variants[i].key);
      if (key && *key)
        target.content_keys[i] = **key;
      else
        uncovered[i] = 1;
    });
    for (std::size_t i = 0; i < project.variants.size(); ++i) {
      if (uncovered[i]) {
        covered = false;
        continue;
      }
      digest.update(project.variants[i].key.name()).update("=").update(target.content_keys[i]->hex()).update("\n");
    }
  }
  if (!covered) return std::nullopt;
  for (const auto& m : project.materials) digest.update("material:").update(runtime::encode_material_record(m.record));
  return digest.digest128();
}

std::optional<KeptShadersPack> unchanged_shaders_pack(const fs::path& out, const cache::Hash128& inputs) {
  auto text = read_input_file(out / kShadersInputsFile, 4096, "shaders inputs");
  if (!text) return std::nullopt;
  std::istringstream lines{std::string(*text)};
  std::string header, file, digest, pack_digest;
  if (!std::getline(lines, header) || header != record_header()) return std::nullopt;
  if (!(lines >> file >> digest >> pack_digest) || digest != inputs.hex()) return std::nullopt;
  // The pack the manifest names, of its size, hashing to what the record says was written: a
  // record of another pack (restored from elsewhere, or left by a set since replaced) fails the
  // digest whatever its name; comparing names first saves reading the pack.
  const auto named = cooked_shaders_pack(out);
  if (!named || named->file != file) return std::nullopt;
  const auto proof = prove_kept_pack(out, named->file, named->bytes, pack_digest, kShadersIdentityFile);
  if (!proof) return std::nullopt;
  return KeptShadersPack{*named, proof->by_identity, proof->identity};
}

Status record_shaders_inputs(const fs::path& out, const runtime::ManifestPack& written_pack,
                             const std::optional<cache::Hash128>& inputs) {
  return write_pack_record(out, kShadersInputsFile, record_header(), written_pack.file, inputs);
}

}  // namespace kiln::cook
