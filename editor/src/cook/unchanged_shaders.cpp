#include "cook/unchanged_shaders.h"

#include "cook/cooked_manifest.h"

#include <sys/stat.h>

#include <ctime>
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

// A change time this long before a proof began is clear of any file system's timestamp
// granularity (a coarse kernel clock, or whole seconds): a write after the proof cannot leave it.
constexpr std::int64_t kSettleNs = 2'000'000'000;

// What stat says of the file itself; equal identities say it was not written in between.
struct FileIdentity {
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

std::optional<FileIdentity> identity_of(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  const auto ns = [](const timespec& t) { return std::int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec; };
  return FileIdentity{std::uint64_t(st.st_dev), std::uint64_t(st.st_ino), std::uint64_t(st.st_size), ns(st.st_mtim),
                      ns(st.st_ctim)};
}

std::int64_t now_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return std::int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

std::string identity_header() { return "kiln-shaders-identity 1"; }

// Whether `<out>/.shaders-identity` proves `pack` (named `file`, hashing to `pack_digest` when
// proved) by the identity it has now.
bool proved_by_identity(const fs::path& out, const std::string& file, const std::string& pack_digest,
                        const FileIdentity& now) {
  auto text = read_input_file(out / kShadersIdentityFile, 4096, "shaders pack identity");
  if (!text) return false;
  std::istringstream lines{std::string(*text)};
  std::string header, named, digest;
  FileIdentity recorded;
  std::int64_t proved_ns = 0;
  if (!std::getline(lines, header) || header != identity_header()) return false;
  if (!(lines >> named >> digest >> recorded.device >> recorded.inode >> recorded.size >> recorded.mtime_ns >>
        recorded.ctime_ns >> proved_ns))
    return false;
  return named == file && digest == pack_digest && recorded == now && recorded.ctime_ns + kSettleNs <= proved_ns;
}

// Best effort: without the record the next cook reads the pack again.
void record_identity(const fs::path& out, const std::string& file, const std::string& pack_digest,
                     const FileIdentity& id, std::int64_t proved_ns) {
  const std::string text = identity_header() + "\n" + file + " " + pack_digest + " " + std::to_string(id.device) + " " +
                           std::to_string(id.inode) + " " + std::to_string(id.size) + " " +
                           std::to_string(id.mtime_ns) + " " + std::to_string(id.ctime_ns) + " " +
                           std::to_string(proved_ns) + "\n";
  (void)write_file_atomically(out / kShadersIdentityFile, std::as_bytes(std::span(text)), 0644,
                              Durability::kRenamedOnly);
}

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
  const fs::path pack = out / named->file;
  const auto before = identity_of(pack);
  if (!before || before->size != named->bytes) return std::nullopt;
  if (proved_by_identity(out, file, pack_digest, *before)) return KeptShadersPack{*named, true};
  const std::int64_t started_ns = now_ns();
  const auto on_disk = digest_of(pack);
  if (!on_disk || on_disk->hex() != pack_digest) return std::nullopt;
  // The identity from before the read stands for the bytes read: a write since has changed it.
  // One whose change time is within the margin of the read would never be trusted: not written.
  if (before->ctime_ns + kSettleNs <= started_ns) record_identity(out, file, pack_digest, *before, started_ns);
  return KeptShadersPack{*named, false};
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
