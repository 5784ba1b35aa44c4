#include "kiln/runtime/manifest.h"

#include <nlohmann/json.hpp>

#include "kiln/core/json_document.h"

namespace kiln::runtime {
namespace {

constexpr std::string_view kFormat = "kiln-cooked-set";
constexpr PackKind kKinds[] = {PackKind::kShaders, PackKind::kScripts, PackKind::kTextures};

bool plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

std::optional<std::uint64_t> parse_hex64(const std::string& text) {
  if (text.size() != 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
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
    packs[std::string(pack_kind_name(kind))] = {
        {"file", it->second.file}, {"bytes", it->second.bytes}, {"checksum", cache::hex64(it->second.checksum)}};
  }
  const nlohmann::ordered_json doc = {{"format", kFormat}, {"version", kManifestVersion}, {"packs", packs}};
  return doc.dump(2) + "\n";
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
    manifest.packs[kind] = std::move(pack);
  }
  return manifest;
}

}  // namespace kiln::runtime
