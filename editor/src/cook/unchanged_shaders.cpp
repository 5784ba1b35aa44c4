#include "cook/unchanged_shaders.h"

#include "cook/cooked_manifest.h"

#include <fstream>
#include <sstream>

#include "kiln/core/atomic_output.h"
#include "kiln/core/input_limits.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/pack.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

// The first line of the record: what it is and the build that made its pack.
std::string record_header() { return std::string("kiln-shaders-inputs 2 ") + KILN_SHADERS_PACK_BUILD_ID; }

// The XXH3-128 of the file, read in pieces: a kept pack is proved to be, byte for byte, the one the
// recording cook wrote (and gave the manifest's SHA-256), without holding it in memory.
std::optional<cache::Hash128> digest_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  cache::Xxh3Stream digest;
  std::vector<char> chunk(std::size_t{1} << 20);
  while (in) {
    in.read(chunk.data(), std::streamsize(chunk.size()));
    digest.update(std::as_bytes(std::span(chunk.data(), std::size_t(in.gcount()))));
  }
  if (!in.eof()) return std::nullopt;
  return digest.digest128();
}

}  // namespace

std::optional<cache::Hash128> shaders_inputs(const project::Project& project, std::vector<TargetVariants>& targets,
                                             const runtime::ShadersIdentity& identity,
                                             const std::string& usage_sha256) {
  cache::Xxh3Stream digest;
  digest.update(record_header()).update("\n").update(std::to_string(runtime::kPackVersion)).update("\n");
  digest.update("usage:").update(usage_sha256).update("\n");
  digest.update(runtime::encode_shaders_identity(identity)).update("\n");
  bool covered = true;
  for (auto& target : targets) {
    digest.update("target:").update(target.target.id()).update("\n");
    target.content_keys.assign(project.variants.size(), std::nullopt);
    for (std::size_t i = 0; i < project.variants.size(); ++i) {
      const auto& planned = project.variants[i];
      auto key = target.library->content_key(planned.key);
      if (!key || !*key) {
        covered = false;
        continue;
      }
      target.content_keys[i] = **key;
      digest.update(planned.key.name()).update("=").update((*key)->hex()).update("\n");
    }
  }
  if (!covered) return std::nullopt;
  for (const auto& m : project.materials) digest.update("material:").update(runtime::encode_material_record(m.record));
  return digest.digest128();
}

std::optional<runtime::ManifestPack> unchanged_shaders_pack(const fs::path& out, const cache::Hash128& inputs) {
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
  const fs::path pack = out / named->file;
  std::error_code ec;
  if (fs::file_size(pack, ec) != named->bytes || ec) return std::nullopt;
  const auto on_disk = digest_of(pack);
  if (!on_disk || on_disk->hex() != pack_digest) return std::nullopt;
  return named;
}

Status record_shaders_inputs(const fs::path& out, const std::optional<cache::Hash128>& inputs) {
  std::error_code ec;
  if (!inputs) {
    fs::remove(out / kShadersInputsFile, ec);
    if (ec) return make_error((out / kShadersInputsFile).string() + ": cannot remove: " + ec.message());
    return {};
  }
  const auto named = cooked_shaders_pack(out);
  if (!named) return make_error((out / runtime::kManifestFile).string() + ": no shaders pack to record the inputs of");
  const std::string& file = named->file;
  const auto written = digest_of(out / file);
  if (!written) return make_error((out / file).string() + ": cannot read the pack just written");
  const std::string text = record_header() + "\n" + file + " " + inputs->hex() + " " + written->hex() + "\n";
  return write_file_atomically(out / kShadersInputsFile, std::as_bytes(std::span(text)), 0644,
                               Durability::kRenamedOnly);
}

}  // namespace kiln::cook
