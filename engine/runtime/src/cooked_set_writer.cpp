#include "kiln/core/input_limits.h"
#include "kiln/runtime/cooked_set_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

#include "kiln/core/atomic_output.h"
#include "kiln/runtime/manifest.h"

namespace kiln::runtime {
namespace fs = std::filesystem;
namespace {

constexpr PackKind kKinds[] = {PackKind::kShaders, PackKind::kScripts, PackKind::kTextures};

// Holds an exclusive advisory lock on a file for its lifetime.
class DirectoryLock {
 public:
  explicit DirectoryLock(const fs::path& file) : fd_(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    int rc = -1;
    while (fd_ >= 0 && (rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {}
    locked_ = fd_ >= 0 && rc == 0;
  }
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  bool held() const { return locked_; }

 private:
  int fd_;
  bool locked_ = false;
};

// Makes the directory's entries (the renames into it) durable before the next step depends on them.
bool sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// The files of the directory named by its current manifest, if it has a readable one.
std::set<std::string> files_in_use(const fs::path& dir) {
  auto text = read_input_file(dir / kManifestFile, limits::kJsonFileBytes, "manifest");
  if (!text) return {};
  auto manifest = decode_manifest(*text, kManifestFile.data());
  std::set<std::string> out;
  if (manifest)
    for (const auto& [kind, pack] : manifest->packs) out.insert(pack.file);
  return out;
}

// A file a cook writes into the directory: packs (this format's names and the older fixed ones),
// and the temp files a killed cook left of them, of the manifest or of the cook's records of its
// packs.
bool cook_output_name(const std::string& name) {
  static const std::regex pattern(
      R"((\.tmp\.[0-9]+\.[0-9]+\.)?((shaders|scripts|textures)(\.[0-9a-f]{16})?\.pack|manifest\.json|\.(shaders|textures)-(inputs|entries|identity)))");
  // The cook's records beside the set (what its packs were made from, and their proofs) are not
  // the set's: only their temp files, left by a killed cook, are stale.
  return std::regex_match(name, pattern) && name != kManifestFile && (name[0] != '.' || name.rfind(".tmp.", 0) == 0);
}

// Whether `file` holds exactly what `writer` streams, with the SHA-256 of those bytes.
struct Comparison {
  bool same = false;
  std::string sha256;
};
Result<Comparison> compare_with(const fs::path& file, const PackWriter& writer) {
  std::ifstream in(file, std::ios::binary);
  cache::Sha256Stream sha;
  std::vector<char> chunk;
  bool same = bool(in);
  KILN_TRY(writer.stream(file.string(), [&](std::span<const std::byte> piece) -> Status {
    sha.update(piece);
    if (!same) return {};
    chunk.resize(piece.size());
    in.read(chunk.data(), std::streamsize(piece.size()));
    same = std::size_t(in.gcount()) == piece.size() && std::memcmp(chunk.data(), piece.data(), piece.size()) == 0;
    return {};
  }));
  same = same && in.peek() == std::char_traits<char>::eof();
  return Comparison{same, sha.hex()};
}

}  // namespace

CookedSetWriter::CookedSetWriter(const ShadersIdentity& shaders_identity, const ScriptsIdentity& scripts_identity)
    : shaders_(PackKind::kShaders, encode_shaders_identity(shaders_identity)),
      scripts_(PackKind::kScripts, encode_scripts_identity(scripts_identity)),
      textures_(PackKind::kTextures, std::string(kTexturesIdentity)) {}

CookedSetWriter::CookedSetWriter(const ShadersIdentity& shaders_identity)
    : CookedSetWriter(shaders_identity, ScriptsIdentity{}) {}

void CookedSetWriter::set_scripts_identity(const ScriptsIdentity& scripts_identity) {
  scripts_.set_identity(encode_scripts_identity(scripts_identity));
}

void CookedSetWriter::add_variant(const std::string& target, const std::string& name, const VariantRecord& record) {
  add_encoded_variant(target, name, encode_variant_record(record));
}
void CookedSetWriter::add_encoded_variant(const std::string& target, const std::string& name,
                                          std::span<const std::byte> record) {
  shaders_.add(entry_name(EntryKind::kVariant, variant_id(target, name)), record);
}
void CookedSetWriter::add_material(const MaterialRecord& record) {
  shaders_.add(entry_name(EntryKind::kMaterial, record.file), encode_material_record(record));
}
void CookedSetWriter::add_program(const std::string& file, std::vector<std::byte> bytecode) {
  scripts_.add(entry_name(EntryKind::kProgram, file), std::move(bytecode));
}
void CookedSetWriter::add_page(const std::string& page_id, std::vector<std::byte> code) {
  scripts_.add(entry_name(EntryKind::kPage, page_id), std::move(code));
}
void CookedSetWriter::add_pipelines(const std::string& target, const std::vector<usage::PipelineUse>& pipelines) {
  usage::UsageRecord record;
  record.pipelines = pipelines;
  const std::string text = usage::encode_usage(record);
  const auto bytes = std::as_bytes(std::span(text));
  shaders_.add(entry_name(EntryKind::kPipelines, target), std::vector<std::byte>(bytes.begin(), bytes.end()));
}
void CookedSetWriter::add_texture(const std::string& file, std::vector<std::byte> tx_bytes, const std::string& target) {
  textures_.add(entry_name(EntryKind::kTexture, target.empty() ? file : variant_id(target, file)), std::move(tx_bytes));
}

Status CookedSetWriter::commit(const fs::path& dir, const ManifestSigner& sign, Manifest* written_manifest) const {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error(dir.string() + ": cannot create the output directory: " + ec.message());
  DirectoryLock lock(dir / ".lock");
  if (!lock.held())
    return make_error((dir / ".lock").string() + ": cannot lock the output directory: " + std::strerror(errno));
  const std::set<std::string> old = files_in_use(dir);

  Manifest next;
  next.usage_sha256 = usage_sha256_;
  std::vector<fs::path> written;
  auto undo = [&](const Error& error) -> Status {
    for (const auto& file : written)
      if (!old.count(file.filename().string())) fs::remove(file, ec);
    return error;
  };
  for (PackKind kind : kKinds) {
    const PackWriter& writer = kind == PackKind::kShaders   ? shaders_
                               : kind == PackKind::kScripts ? scripts_
                                                            : textures_;
    if (auto kept = kept_.find(kind); kept != kept_.end()) {
      if (!old.count(kept->second.file))
        return undo(make_error(dir.string() + ": the set there changed during the cook (it no longer names " +
                               kept->second.file + "); cook again"));
      next.packs[kind] = kept->second;
      continue;
    }
    const std::string where = (dir / (std::string(pack_kind_name(kind)) + ".pack")).string();
    auto checksum = writer.checksum(where);
    if (!checksum) return undo(checksum.error());
    const std::string file = pack_file_name(kind, *checksum);
    // An unchanged pack of the set in use stays as it is (no rewrite on an incremental cook); a
    // damaged one is replaced. Either way the pack streams from the writer: it is never whole in memory.
    std::string sha256;
    if (old.count(file)) {
      auto kept = compare_with(dir / file, writer);
      if (!kept) return undo(kept.error());
      if (kept->same) sha256 = kept->sha256;
    }
    std::uint64_t size = 0;
    if (sha256.empty()) {
      cache::Sha256Stream sha;
      auto s = write_file_atomically(dir / file, [&](const ByteSink& sink) {
        return writer.stream(where, [&](std::span<const std::byte> piece) {
          sha.update(piece);
          size += piece.size();
          return sink(piece);
        });
      });
      if (!s) return undo(s.error());
      written.push_back(dir / file);
      sha256 = sha.hex();
    } else {
      size = fs::file_size(dir / file, ec);
    }
    next.packs[kind] = {file, size, *checksum, sha256};
  }
  if (sign) {
    auto signature = sign(manifest_signed_text(next));
    if (!signature) return undo(signature.error());
    next.signature = std::move(*signature);
  }
  const std::string manifest = encode_manifest(next);
  // The set in use already, to the byte (every pack kept or the same, the manifest too): a warm
  // cook writes and flushes nothing. (That manifest was flushed when it was switched in.)
  const auto in_use = read_input_file(dir / kManifestFile, limits::kJsonFileBytes, "manifest");
  const bool already = written.empty() && in_use && *in_use == manifest;
  if (!already) {
    if (!sync_directory(dir)) return undo(make_error(dir.string() + ": cannot flush the directory to disk"));
    if (auto s = write_file_atomically(dir / kManifestFile, std::as_bytes(std::span(manifest))); !s)
      return undo(s.error());
  }
  // Switched. Old packs go only once the switch is on disk: removals must never become durable
  // before the manifest that stops naming them.
  if (written_manifest) *written_manifest = next;
  if (!already && !sync_directory(dir)) return {};
  std::set<std::string> keep;
  for (const auto& [kind, pack] : next.packs) keep.insert(pack.file);
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (cook_output_name(name) && !keep.count(name)) stale.push_back(it->path());
  }
  for (const auto& file : stale) fs::remove(file, ec);
  return {};
}

}  // namespace kiln::runtime
