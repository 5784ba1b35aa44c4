#include "set_rewrite.h"

#include <doctest/doctest.h>

#include <cstring>

#include "kiln/cache/hash.h"
#include "kiln/runtime/manifest.h"
#include "test_files.h"

namespace kiln::test {
namespace fs = std::filesystem;

void rewrite_set(const fs::path& from, const fs::path& to, const EntryEdit& edit) {
  fs::create_directories(to);
  auto manifest_text = slurp(from / runtime::kManifestFile);
  auto manifest = runtime::decode_manifest(manifest_text, "manifest");
  REQUIRE(manifest);
  runtime::Manifest out = *manifest;
  for (auto& [kind, named] : out.packs) {
    auto pack = runtime::Pack::open(from / named.file, kind);
    REQUIRE(pack);
    runtime::PackWriter writer(kind, (*pack)->identity());
    for (const std::string& name : (*pack)->names()) {
      auto payload = (*pack)->find(name);
      REQUIRE(payload);
      REQUIRE(payload->has_value());
      writer.add(name, edit(kind, name, std::vector<std::byte>((*payload)->begin(), (*payload)->end())));
    }
    auto bytes = writer.encode("pack");
    REQUIRE(bytes);
    named.checksum = runtime::pack_checksum(*bytes);
    named.bytes = bytes->size();
    named.file = runtime::pack_file_name(kind, named.checksum);
    if (!named.sha256.empty()) named.sha256 = cache::sha256_hex(std::span<const std::byte>(*bytes));
    spit(to / named.file, std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  }
  spit(to / runtime::kManifestFile, runtime::encode_manifest(out));
}

void patch_set_in_place(const fs::path& from, const fs::path& to, const EntryEdit& edit) {
  fs::create_directories(to);
  const std::string manifest_text = slurp(from / runtime::kManifestFile);
  auto manifest = runtime::decode_manifest(manifest_text, "manifest");
  REQUIRE(manifest);
  for (const auto& [kind, named] : manifest->packs) {
    auto pack = runtime::Pack::open(from / named.file, kind);
    REQUIRE(pack);
    std::string file = slurp(from / named.file);
    const std::byte* base = (*pack)->bytes().data();
    for (const std::string& name : (*pack)->names()) {
      auto payload = (*pack)->find(name);
      REQUIRE(payload);
      REQUIRE(payload->has_value());
      const auto edited = edit(kind, name, std::vector<std::byte>((*payload)->begin(), (*payload)->end()));
      REQUIRE(edited.size() == (*payload)->size());
      std::memcpy(file.data() + ((*payload)->data() - base), edited.data(), edited.size());
    }
    spit(to / named.file, file);
  }
  spit(to / runtime::kManifestFile, manifest_text);
}

}  // namespace kiln::test
