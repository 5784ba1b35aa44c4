#include "kiln/runtime/cooked_set.h"
#include "kiln/runtime/shader_interface.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

namespace kiln::runtime {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMaxManifestBytes = 1 << 20;

// The manifest's text; a FIFO, a directory or a huge file is an error, never a hang.
Result<std::string> read_manifest(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT)
      return make_error(path.string() +
                        ": no manifest (not a cooked directory, or cooked by an older Kiln: cook again)");
    return make_error(path.string() + ": cannot open: " + std::strerror(errno));
  }
  struct stat st;
  std::string text;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > off_t(kMaxManifestBytes)) {
    ::close(fd);
    return make_error(path.string() + ": not a manifest (not a regular file of at most 1 MiB)");
  }
  text.resize(static_cast<std::size_t>(st.st_size));
  const ssize_t n = ::read(fd, text.data(), text.size());
  ::close(fd);
  if (n != st.st_size) return make_error(path.string() + ": cannot read");
  return text;
}

std::string key_list(const trust::TrustPolicy& trust) {
  std::string ids;
  for (const auto& key : trust.keys) ids += (ids.empty() ? "" : ", ") + key.id();
  return ids;
}

// The manifest is signed by a key `trust` names, and the signature is over what it says.
Status check_signature(const Manifest& manifest, const trust::TrustPolicy& trust, const fs::path& where) {
  const std::string at = where.string() + ": refused: ";
  if (trust.keys.empty())
    return make_error(at + "a signature is required, but the trust policy names no key to check it with");
  if (!manifest.signature)
    return make_error(at + "the set is not signed (a signature by a trusted key is required: " + key_list(trust) + ")");
  const ManifestSignature& signature = *manifest.signature;
  const trust::PublicKey* key = trust.find(signature.key_id);
  if (!key)
    return make_error(at + "signed by key " + signature.key_id + ", which is not trusted (trusted: " + key_list(trust) +
                      ")");
  const std::string text = manifest_signed_text(manifest);
  const auto verified = trust::verify_signature(*key, std::as_bytes(std::span(text)), signature.value);
  if (!verified) return make_error(at + verified.error().message);
  if (!*verified)
    return make_error(at + "its signature by key " + signature.key_id +
                      " does not match its contents (the manifest changed after it was signed)");
  return {};
}

}  // namespace

Result<std::unique_ptr<CookedSet>> CookedSet::open(const fs::path& dir, const trust::TrustPolicy& trust) {
  // A cook may switch sets while this reads: when a pack the manifest names is gone, the manifest
  // has been replaced, and reading it again gives the new set.
  for (int attempt = 0;; ++attempt) {
    auto text = read_manifest(dir / kManifestFile);
    if (!text) return text.error();
    auto manifest = decode_manifest(*text, (dir / kManifestFile).string());
    if (!manifest) return manifest.error();
    if (trust.active()) KILN_TRY(check_signature(*manifest, trust, dir / kManifestFile));
    std::unique_ptr<CookedSet> set(new CookedSet());
    set->manifest_ = std::move(*manifest);
    if (trust.active()) set->verified_signer_ = set->manifest_.signature->key_id;
    std::optional<Error> failed;
    for (auto& [kind, slot] :
         {std::pair{PackKind::kShaders, &set->shaders_}, std::pair{PackKind::kScripts, &set->scripts_},
          std::pair{PackKind::kTextures, &set->textures_}}) {
      const ManifestPack& named = set->manifest_.packs.at(kind);
      const fs::path file = dir / named.file;
      // The signature commits to the packs through their SHA-256: computed on the bytes this reader
      // holds and will use, before any of them is parsed.
      Pack::BytesCheck signed_bytes;
      if (trust.active())
        signed_bytes = [&](std::span<const std::byte> bytes) -> Status {
          const std::string sha256 = cache::sha256_hex(bytes);
          if (sha256 == named.sha256) return {};
          return make_error(file.string() + ": refused: its SHA-256 " + sha256.substr(0, 12) +
                            " is not the one the signed manifest names (" + named.sha256.substr(0, 12) +
                            "): the pack changed after the set was signed by key " + set->manifest_.signature->key_id);
        };
      auto pack = Pack::open(file, kind, signed_bytes);
      if (!pack) {
        failed = pack.error();
        break;
      }
      if ((*pack)->checksum() != named.checksum || (*pack)->file_size() != named.bytes) {
        failed = make_error(file.string() + ": does not match the manifest (" + std::to_string((*pack)->file_size()) +
                            " bytes, checksum " + cache::hex64((*pack)->checksum()) + "; the manifest says " +
                            std::to_string(named.bytes) + " bytes, checksum " + cache::hex64(named.checksum) + ")");
        break;
      }
      *slot = std::move(*pack);
    }
    if (!failed) return set;
    // Retried only when the manifest changed meanwhile (a cook switched sets).
    auto again = read_manifest(dir / kManifestFile);
    if (attempt >= 3 || !again || *again == *text) return *failed;
  }
}

const Pack& CookedSet::pack(PackKind kind) const {
  switch (kind) {
    case PackKind::kShaders: return *shaders_;
    case PackKind::kScripts: return *scripts_;
    case PackKind::kTextures: return *textures_;
  }
  return *shaders_;
}

namespace {

PackKind pack_of(EntryKind kind) {
  switch (kind) {
    case EntryKind::kVariant:
    case EntryKind::kMaterial:
    case EntryKind::kPipelines: return PackKind::kShaders;
    case EntryKind::kProgram:
    case EntryKind::kPage: return PackKind::kScripts;
    case EntryKind::kTexture: return PackKind::kTextures;
  }
  return PackKind::kShaders;
}

}  // namespace

std::vector<std::string> CookedSet::ids(EntryKind kind) const {
  std::vector<std::string> out;
  for (const std::string& name : pack(pack_of(kind)).names())
    if (auto id = entry_id(kind, name)) out.emplace_back(*id);
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::span<const std::byte>> CookedSet::entry(EntryKind kind, std::string_view id) const {
  const Pack& p = pack(pack_of(kind));
  const std::string name = entry_name(kind, id);
  auto found = p.find(name);
  if (!found) return found.error();
  if (!found->has_value())
    return make_error(p.path().string() + ": no entry '" + name + "' (" + pack_key(name).hex().substr(0, 12) + ")");
  return **found;
}

Result<MaterialRecord> CookedSet::material(std::string_view file) const {
  auto bytes = entry(EntryKind::kMaterial, file);
  if (!bytes) return bytes.error();
  return decode_material_record(*bytes, shaders_->path().string() + ": " + entry_name(EntryKind::kMaterial, file));
}

std::vector<std::string> CookedSet::targets() const {
  std::vector<std::string> out;
  if (auto identity = decode_shaders_identity(shaders_->identity()))
    for (const auto& [target, ns] : identity->targets) out.push_back(target);
  return out;
}

Result<VariantRecord> CookedSet::variant(std::string_view name, std::string_view target) const {
  std::string chosen(target);
  if (chosen.empty()) {
    const auto all = targets();
    if (all.empty())
      return make_error(shaders_->path().string() +
                        ": its identity names no shader target (cooked by another version of Kiln: cook again)");
    chosen = all.front();
  }
  const std::string id = variant_id(chosen, name);
  auto bytes = entry(EntryKind::kVariant, id);
  if (!bytes) return bytes.error();
  const std::string where = shaders_->path().string() + ": " + entry_name(EntryKind::kVariant, id);
  return decode_variant_record(*bytes, where);
}

Result<std::span<const std::byte>> CookedSet::program(std::string_view file) const {
  return entry(EntryKind::kProgram, file);
}

Result<std::span<const std::byte>> CookedSet::texture(std::string_view file, std::string_view target) const {
  if (!target.empty()) {
    const auto all = targets();
    if (std::find(all.begin(), all.end(), target) == all.end()) {
      std::string listed;
      for (const auto& t : all) listed += (listed.empty() ? "" : ", ") + t;
      return make_error(shaders_->path().parent_path().string() + ": no target " + std::string(target) + " (it has " +
                        listed + ")");
    }
    const std::string own = variant_id(target, file);
    auto found = textures_->find(entry_name(EntryKind::kTexture, own));
    if (!found) return found.error();
    if (*found) return entry(EntryKind::kTexture, own);
  }
  return entry(EntryKind::kTexture, file);
}

Result<textures::ShippedTexture> CookedSet::texture_description(std::string_view file, std::string_view target) const {
  auto bytes = texture(file, target);
  if (!bytes) return bytes.error();
  return textures::describe_shipped_texture(*bytes,
                                            textures_->path().string() + ": " + entry_name(EntryKind::kTexture, file));
}

std::optional<ScriptsIdentity> CookedSet::scripts_identity() const {
  return decode_scripts_identity(scripts_->identity());
}

Status CookedSet::check() const {
  std::string problems;
  auto add = [&](const std::string& line) { problems += (problems.empty() ? "" : "\n") + line; };
  std::set<std::string> variants_seen, textures_seen;
  const std::vector<std::string> all_targets = targets();
  if (all_targets.empty())
    add(shaders_->path().string() +
        ": its identity names no shader target (cooked by another version of Kiln: cook again)");  // each decoded once, however many materials name it
  for (const std::string& file : ids(EntryKind::kMaterial)) {
    auto material = this->material(file);
    if (!material) {
      add(material.error().message);
      continue;
    }
    for (const auto& pass : material->passes) {
      if (!variants_seen.insert(pass.variant).second) continue;
      for (const auto& target : all_targets)
        if (auto v = variant(pass.variant, target); !v) add(v.error().message + ", asked for by " + file);
    }
    for (const auto& [slot, texture_file] : material->textures)
      if (textures_seen.insert(texture_file).second)
        if (auto tx = texture(texture_file); !tx) add(tx.error().message + ", asked for by " + file);
  }
  // The recorded pipelines name variants of the set.
  for (const auto& target : all_targets) {
    auto pipelines = recorded_pipelines(target);
    if (!pipelines) {
      add(pipelines.error().message);
      continue;
    }
    for (const auto& p : *pipelines)
      if (!entry(EntryKind::kVariant, p.variant))
        add(shaders_->path().string() + ": " + entry_name(EntryKind::kPipelines, target) + ": pipeline of " +
            p.variant + ", a variant the set does not have");
  }
  if (!problems.empty()) return make_error(problems);
  return {};
}

Result<std::vector<usage::PipelineUse>> CookedSet::recorded_pipelines(std::string_view target) const {
  std::string chosen(target);
  if (chosen.empty()) {
    const auto all = targets();
    if (all.empty()) return std::vector<usage::PipelineUse>{};
    chosen = all.front();
  }
  const std::string name = entry_name(EntryKind::kPipelines, chosen);
  auto found = shaders_->find(name);
  if (!found) return found.error();
  if (!found->has_value()) return std::vector<usage::PipelineUse>{};  // cooked without a record
  const std::span<const std::byte> bytes = **found;
  auto record = usage::decode_usage(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                    shaders_->path().string() + ": " + name);
  if (!record) return record.error();
  return std::move(record->pipelines);
}

}  // namespace kiln::runtime
