#include "kiln/runtime/manifest.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "kiln/core/text.h"

#include "kiln/core/json_document.h"

namespace kiln::runtime {
namespace {

constexpr std::string_view kFormat = "kiln-cooked-set";
constexpr PackKind kKinds[] = {PackKind::kShaders, PackKind::kScripts, PackKind::kTextures};

bool plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

int hex_digit(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

bool lowercase_hex(const std::string& text, std::size_t digits) {
  return text.size() == digits && std::all_of(text.begin(), text.end(), [](char c) { return hex_digit(c) >= 0; });
}

std::optional<std::uint64_t> parse_hex64(const std::string& text) {
  if (text.size() != 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    const int d = hex_digit(c);
    if (d < 0) return std::nullopt;
    v = v << 4 | std::uint64_t(d);
  }
  return v;
}

}  // namespace

std::string pack_file_name(PackKind kind, std::uint64_t checksum) {
  return std::string(pack_kind_name(kind)) + "." + cache::hex64(checksum) + ".pack";
}

std::string encode_manifest(const Manifest& manifest) {
  nlohmann::ordered_json packs = nlohmann::ordered_json::object();
  for (PackKind kind : kKinds) {
    auto it = manifest.packs.find(kind);
    if (it == manifest.packs.end()) continue;
    nlohmann::ordered_json pack = {
        {"file", it->second.file}, {"bytes", it->second.bytes}, {"checksum", cache::hex64(it->second.checksum)}};
    if (!it->second.sha256.empty()) pack["sha256"] = it->second.sha256;
    packs[std::string(pack_kind_name(kind))] = pack;
  }
  nlohmann::ordered_json doc = {{"format", kFormat}, {"version", kManifestVersion}, {"packs", packs}};
  if (!manifest.usage_sha256.empty()) doc["usage"] = {{"sha256", manifest.usage_sha256}};
  if (manifest.signature)
    doc["signature"] = {
        {"algorithm", "ed25519"}, {"key", manifest.signature->key_id}, {"value", hex_bytes(manifest.signature->value)}};
  return doc.dump(2) + "\n";
}

std::string manifest_signed_text(const Manifest& manifest) {
  Manifest unsigned_copy = manifest;
  unsigned_copy.signature.reset();
  return "kiln-cooked-set signed manifest 1\n" + encode_manifest(unsigned_copy);
}

Result<Manifest> decode_manifest(std::string_view text, const std::string& where) {
  auto doc = parse_json_document(where, text);
  if (!doc) return doc.error();
  const nlohmann::json& root = *doc;
  auto problem = [&](const std::string& pointer, const std::string& what) {
    return make_error(where + ": " + pointer + ": " + what);
  };
  if (!root.is_object()) return problem("", "expected a JSON object");
  if (!root.contains("format") || root["format"] != kFormat) return problem("/format", "expected \"kiln-cooked-set\"");
  if (!root.contains("version") || !root["version"].is_number_unsigned())
    return problem("/version", "expected a version number");
  if (root["version"].get<std::uint64_t>() != kManifestVersion)
    return problem("/version", "version " + root["version"].dump() + " (this build reads " +
                                   std::to_string(kManifestVersion) + "); cook the project again");
  if (!root.contains("packs") || !root["packs"].is_object()) return problem("/packs", "expected an object");
  Manifest manifest;
  for (PackKind kind : kKinds) {
    const std::string name(pack_kind_name(kind));
    const std::string at = "/packs/" + name;
    if (!root["packs"].contains(name)) return problem(at, "missing");
    const nlohmann::json& p = root["packs"][name];
    if (!p.is_object()) return problem(at, "expected an object");
    ManifestPack pack;
    if (!p.contains("file") || !p["file"].is_string() || !plain_file_name(p["file"].get<std::string>()))
      return problem(at + "/file", "expected a file name in the cooked directory");
    pack.file = p["file"].get<std::string>();
    if (!p.contains("bytes") || !p["bytes"].is_number_unsigned()) return problem(at + "/bytes", "expected a size");
    pack.bytes = p["bytes"].get<std::uint64_t>();
    const auto checksum = p.contains("checksum") && p["checksum"].is_string()
                              ? parse_hex64(p["checksum"].get<std::string>())
                              : std::nullopt;
    if (!checksum) return problem(at + "/checksum", "expected 16 lowercase hex digits");
    pack.checksum = *checksum;
    if (p.contains("sha256")) {
      if (!p["sha256"].is_string() || !lowercase_hex(p["sha256"].get<std::string>(), 64))
        return problem(at + "/sha256", "expected 64 lowercase hex digits");
      pack.sha256 = p["sha256"].get<std::string>();
    }
    manifest.packs[kind] = std::move(pack);
  }
  if (root.contains("usage")) {
    const nlohmann::json& usage = root["usage"];
    if (!usage.is_object() || !usage.contains("sha256") || !usage["sha256"].is_string() ||
        !lowercase_hex(usage["sha256"].get<std::string>(), 64))
      return problem("/usage/sha256", "expected 64 lowercase hex digits (the usage record's SHA-256)");
    manifest.usage_sha256 = usage["sha256"].get<std::string>();
  }
  if (root.contains("signature")) {
    const nlohmann::json& sig = root["signature"];
    if (!sig.is_object()) return problem("/signature", "expected an object");
    if (!sig.contains("algorithm") || sig["algorithm"] != "ed25519")
      return problem("/signature/algorithm", "expected \"ed25519\" (the only algorithm Kiln signs with)");
    if (!sig.contains("key") || !sig["key"].is_string() || !lowercase_hex(sig["key"].get<std::string>(), 16))
      return problem("/signature/key", "expected a key id (16 lowercase hex digits)");
    const std::string value = sig.contains("value") && sig["value"].is_string() ? sig["value"].get<std::string>() : "";
    if (!lowercase_hex(value, 2 * trust::kSignatureBytes))
      return problem("/signature/value", "expected 128 lowercase hex digits");
    ManifestSignature signature;
    signature.key_id = sig["key"].get<std::string>();
    for (std::size_t i = 0; i < signature.value.size(); ++i)
      signature.value[i] = std::uint8_t(hex_digit(value[2 * i]) << 4 | hex_digit(value[2 * i + 1]));
    for (const PackKind kind : kKinds)
      if (manifest.packs[kind].sha256.empty())
        return problem("/packs/" + std::string(pack_kind_name(kind)) + "/sha256",
                       "missing in a signed manifest (the signature commits to every pack by it)");
    manifest.signature = std::move(signature);
  }
  return manifest;
}

}  // namespace kiln::runtime
