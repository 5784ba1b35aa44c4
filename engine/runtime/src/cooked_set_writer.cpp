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
// and the temp files a killed cook left of them or of the manifest.
bool cook_output_name(const std::string& name) {
  static const std::regex pattern(
      R"((\.tmp\.[0-9]+\.[0-9]+\.)?((shaders|scripts|textures)(\.[0-9a-f]{16})?\.pack|manifest\.json))");
  return std::regex_match(name, pattern) && name != kManifestFile;
}

bool same_content(const fs::path& file, std::span<const std::byte> bytes) {
  std::ifstream in(file, std::ios::binary);
  std::vector<char> chunk(1 << 16);
  std::size_t at = 0;
  while (in) {
    in.read(chunk.data(), std::streamsize(chunk.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n > bytes.size() - at || std::memcmp(chunk.data(), bytes.data() + at, n) != 0) return false;
    at += n;
  }
  return at == bytes.size();
}

}  // namespace

CookedSetWriter::CookedSetWriter(const ShadersIdentity& shaders_identity, const ScriptsIdentity& scripts_identity)
    : shaders_(PackKind::kShaders, encode_shaders_identity(shaders_identity)),
      scripts_(PackKind::kScripts, encode_scripts_identity(scripts_identity)),
      textures_(PackKind::kTextures, std::string(kTexturesIdentity)) {}

void CookedSetWriter::add_variant(const std::string& target, const std::string& name, const VariantRecord& record) {
  shaders_.add(entry_name(EntryKind::kVariant, variant_id(target, name)), encode_variant_record(record));
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

Status CookedSetWriter::commit(const fs::path& dir, const ManifestSigner& sign) const {
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
    auto bytes = writer.encode((dir / (std::string(pack_kind_name(kind)) + ".pack")).string());
    if (!bytes) return undo(bytes.error());
    const std::uint64_t checksum = pack_checksum(*bytes);
    const std::string file = pack_file_name(kind, checksum);
    // An unchanged pack of the set in use stays as it is (no rewrite on an incremental cook); a
    // damaged one is replaced.
    if (!old.count(file) || !same_content(dir / file, *bytes)) {
      if (auto s = write_file_atomically(dir / file, *bytes); !s) return undo(s.error());
      written.push_back(dir / file);
    }
    next.packs[kind] = {file, bytes->size(), checksum, cache::sha256_hex(std::span<const std::byte>(*bytes))};
  }
  if (sign) {
    auto signature = sign(manifest_signed_text(next));
    if (!signature) return undo(signature.error());
    next.signature = std::move(*signature);
  }
  if (!sync_directory(dir)) return undo(make_error(dir.string() + ": cannot flush the directory to disk"));
  const std::string manifest = encode_manifest(next);
  if (auto s = write_file_atomically(dir / kManifestFile, std::as_bytes(std::span(manifest))); !s)
    return undo(s.error());
  // Switched. Old packs go only once the switch is on disk: removals must never become durable
  // before the manifest that stops naming them.
  if (!sync_directory(dir)) return {};
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
