#include "cook/kept_pack.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "kiln/core/atomic_output.h"
#include "kiln/core/file_identity.h"
#include "kiln/core/input_limits.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

constexpr const char* kIdentityHeader = "kiln-pack-identity 1";

// Whether the record proves the pack `file`, hashing to `pack_digest` when proved, by the identity
// it has now.
bool proved_by_identity(const fs::path& record, const std::string& file, const std::string& pack_digest,
                        const FileIdentity& now) {
  auto text = read_input_file(record, 4096, "pack identity");
  if (!text) return false;
  std::istringstream lines{std::string(*text)};
  std::string header, named, digest;
  FileIdentity recorded;
  std::int64_t proved_ns = 0;
  if (!std::getline(lines, header) || header != kIdentityHeader) return false;
  if (!(lines >> named >> digest >> recorded.device >> recorded.inode >> recorded.size >> recorded.mtime_ns >>
        recorded.ctime_ns >> proved_ns))
    return false;
  return named == file && digest == pack_digest && recorded == now && recorded.settled_at(proved_ns);
}

std::string identity_text(const std::string& file, const std::string& pack_digest, const FileIdentity& id,
                          std::int64_t proved_ns) {
  return std::string(kIdentityHeader) + "\n" + file + " " + pack_digest + " " + id.text() + " " +
         std::to_string(proved_ns) + "\n";
}

}  // namespace

std::optional<cache::Hash128> pack_digest_of(const fs::path& file) {
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

Status write_pack_record(const fs::path& out, const std::string& record, const std::string& header,
                         const std::string& file, const std::optional<cache::Hash128>& inputs,
                         const std::string& line_tail, const std::string& more) {
  std::error_code ec;
  if (!inputs) {
    fs::remove(out / record, ec);
    if (ec) return make_error((out / record).string() + ": cannot remove: " + ec.message());
    return {};
  }
  const auto written = pack_digest_of(out / file);
  if (!written) return make_error((out / file).string() + ": cannot read the pack just written");
  const std::string text = header + "\n" + file + " " + inputs->hex() + " " + written->hex() + line_tail + "\n" + more;
  return write_file_atomically(out / record, std::as_bytes(std::span(text)), 0644, Durability::kRenamedOnly);
}

void write_pending_identity(const fs::path& out, const PendingIdentity& pending) {
  if (pending.record.empty()) return;
  (void)write_file_atomically(out / pending.record, std::as_bytes(std::span(pending.text)), 0644,
                              Durability::kRenamedOnly);
}

std::optional<PackProof> prove_kept_pack(const fs::path& out, const std::string& file, std::uint64_t bytes,
                                         const std::string& pack_digest, const std::string& identity_record) {
  const fs::path pack = out / file, record = out / identity_record;
  const auto before = file_identity(pack);
  if (!before || before->size != bytes) return std::nullopt;
  if (proved_by_identity(record, file, pack_digest, *before)) return PackProof{true, {}};
  const std::int64_t started_ns = wall_clock_ns();
  const auto on_disk = pack_digest_of(pack);
  if (!on_disk || on_disk->hex() != pack_digest) return std::nullopt;
  // The identity from before the read stands for the bytes read: a write since has changed it.
  // One whose change time is within the margin of the read would never be trusted: not written.
  if (!before->settled_at(started_ns)) return PackProof{false, {}};
  return PackProof{false, {identity_record, identity_text(file, pack_digest, *before, started_ns)}};
}

}  // namespace kiln::cook
