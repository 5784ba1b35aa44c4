#pragma once
// The proof that a pack a cook keeps from the set in its output directory is, byte for byte, the
// one a cook wrote: its XXH3-128 against what the recording cook read or wrote.
//
// Reading a pack to prove it costs a read of every byte. A cook that proved a pack so, once its
// change time lies a settling margin (3 s) before the read began, also records (after its commit:
// a cook that fails writes nothing into its output directory) the pack's file identity (device, inode, size, modification and change times) with its digest, in
// `<out>/.<kind>-identity`. The next cook that finds the same identity trusts it without reading
// the pack, as git trusts its index: any write to the file moves its change time past the recorded
// one, which the margin keeps clear of the file system's timestamp granularity. An identity whose
// change time lies within the margin of its proof is never trusted. A copy of the directory
// elsewhere, or a pack written in place, is read again.
//
// Thread-safety: called from the cook's thread.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "kiln/cache/hash.h"
#include "kiln/core/result.h"

namespace kiln::cook {

// The XXH3-128 of the file, read in pieces (never held whole); nullopt when it cannot be read.
std::optional<cache::Hash128> pack_digest_of(const std::filesystem::path& file);

// A pack's identity to record in `<out>/<record>` once the cook has committed (a cook that fails
// writes nothing into its output directory); an empty `record`: nothing to record.
struct PendingIdentity {
  std::string record;
  std::string text;
};

// How a kept pack was proved: by its recorded identity, or by reading it (then, once the pack had
// settled, with its identity to record).
struct PackProof {
  bool by_identity = false;
  PendingIdentity identity;
};

// Whether `<out>/<file>`, of `bytes` bytes, hashes to `pack_digest` (hex): by the identity in
// `<out>/<identity_record>` when it still holds, else by reading the pack; nullopt: it is not that
// pack.
std::optional<PackProof> prove_kept_pack(const std::filesystem::path& out, const std::string& file, std::uint64_t bytes,
                                         const std::string& pack_digest, const std::string& identity_record);

// Writes `pending` into `out`, best effort: without it the next cook reads the pack again.
void write_pending_identity(const std::filesystem::path& out, const PendingIdentity& pending);

// Writes the record `<out>/<record>` of what the pack `file` just written was made from: `header`,
// then a line of the file, the inputs' digest, the pack's XXH3-128 (read once) and `line_tail`,
// then `more` (whole lines); nullopt `inputs` removes the record, so that the next cook builds the
// pack. Written atomically, never flushed: without it the next cook builds the pack again.
Status write_pack_record(const std::filesystem::path& out, const std::string& record, const std::string& header,
                         const std::string& file, const std::optional<cache::Hash128>& inputs,
                         const std::string& line_tail = {}, const std::string& more = {});

}  // namespace kiln::cook
