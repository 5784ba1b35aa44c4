// Signed cooked sets through the reader API: CookedSetWriter signs, CookedSet::open checks under a
// trust policy. Every field the signature commits to, changed alone, makes the set refused naming
// the signature; without a policy, a set opens as its checksums allow.

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "child_process.h"
#include "kiln/cache/hash.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/runtime/cooked_set_writer.h"
#include "kiln/signing/signing_key.h"
#include "set_rewrite.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using namespace kiln::runtime;
namespace fs = std::filesystem;

namespace {

std::vector<std::byte> bytes(const std::string& s) {
  const auto span = std::as_bytes(std::span(s));
  return {span.begin(), span.end()};
}

// A small set: one program, one page, one texture entry (open() decodes none of them).
Status write_set(const fs::path& dir, const signing::SigningKey* key) {
  CookedSetWriter writer(ShadersIdentity{{{"spirv-vulkan1.0", "ns"}}}, ScriptsIdentity{"build", "fingerprint"});
  writer.add_program("scripts/a.lua", bytes("bytecode of a"));
  writer.add_page("page-1", bytes(std::string(4096, '\xcc')));
  writer.add_texture("textures/t.png", bytes("tx bytes"));
  ManifestSigner signer;
  if (key)
    signer = [key](std::string_view text) -> Result<ManifestSignature> {
      auto signature = key->sign(std::as_bytes(std::span(text)));
      if (!signature) return signature.error();
      return ManifestSignature{key->public_key().id(), *signature};
    };
  return writer.commit(dir, signer);
}

trust::TrustPolicy trusting(const std::vector<fs::path>& pubs) {
  auto policy = trust::load_trust_policy(pubs, false);
  REQUIRE(policy);
  return *policy;
}

// The message of a refused open, which must say why in terms of the signature.
std::string refusal(const fs::path& dir, const trust::TrustPolicy& policy) {
  auto set = CookedSet::open(dir, policy);
  REQUIRE_FALSE(set);
  return set.error().message;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Keys {
  test::TempDir dir{"signed-sets"};
  signing::SigningKey release, other;
  Keys() : release(make(dir / "release.key")), other(make(dir / "other.key")) {}
  static signing::SigningKey make(const fs::path& file) {
    REQUIRE(signing::generate_key_pair(file));
    auto key = signing::SigningKey::load(file);
    REQUIRE(key);
    return std::move(*key);
  }
  fs::path pub(const char* name) const { return dir / (std::string(name) + ".key.pub"); }
};

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("a signed set opens under its key - unsigned and foreign-key sets are refused naming why") {
    Keys keys;
    REQUIRE(write_set(keys.dir / "signed", &keys.release));
    REQUIRE(write_set(keys.dir / "unsigned", nullptr));
    REQUIRE(write_set(keys.dir / "foreign", &keys.other));
    const auto policy = trusting({keys.pub("release")});

    auto set = CookedSet::open(keys.dir / "signed", policy);
    REQUIRE_MESSAGE(set, set.error().message);
    CHECK((*set)->verified_signer() == keys.release.public_key().id());
    CHECK((*set)->manifest().signature->key_id == keys.release.public_key().id());

    CHECK(has(refusal(keys.dir / "unsigned", policy), "the set is not signed"));
    const std::string foreign = refusal(keys.dir / "foreign", policy);
    CHECK_MESSAGE(has(foreign, "signed by key " + keys.other.public_key().id() + ", which is not trusted"), foreign);
    CHECK(has(foreign, keys.release.public_key().id()));
    // Rotation: either of two trusted keys will do.
    auto rotated = CookedSet::open(keys.dir / "foreign", trusting({keys.pub("release"), keys.pub("other")}));
    REQUIRE(rotated);
    CHECK((*rotated)->verified_signer() == keys.other.public_key().id());
    // Required with no key: nothing opens.
    trust::TrustPolicy required;
    required.require_signature = true;
    CHECK(has(refusal(keys.dir / "signed", required), "names no key"));
    // No policy: today's reader, signed or not, and no signer claimed.
    auto plain = CookedSet::open(keys.dir / "unsigned");
    REQUIRE(plain);
    CHECK((*plain)->verified_signer().empty());
  }

  TEST_CASE("openssl verifies a cooked set's manifest signature - over the manifest's signed text") {
    Keys keys;
    REQUIRE(write_set(keys.dir / "signed", &keys.release));
    auto manifest = decode_manifest(test::slurp(keys.dir / "signed" / kManifestFile), "manifest");
    REQUIRE(manifest);
    REQUIRE(manifest->signature);
    for (const auto& [kind, pack] : manifest->packs) {
      const std::string file = pack.file;
      CAPTURE(file);
      CHECK(pack.sha256 == cache::sha256_hex(test::slurp(keys.dir / "signed" / pack.file)));
    }
    test::spit(keys.dir / "text", manifest_signed_text(*manifest));
    const auto& value = manifest->signature->value;
    test::spit(keys.dir / "sig", std::string(reinterpret_cast<const char*>(value.data()), value.size()));
    const auto verified =
        test::run_process({"/usr/bin/openssl", "pkeyutl", "-verify", "-pubin", "-inkey", keys.pub("release").string(),
                           "-rawin", "-in", (keys.dir / "text").string(), "-sigfile", (keys.dir / "sig").string()});
    CHECK_MESSAGE(verified.exit_code == 0, verified.output);
    // The text covers the packs' names, sizes, checksums and SHA-256, and not the signature itself.
    const std::string text = manifest_signed_text(*manifest);
    for (const auto& [kind, pack] : manifest->packs) {
      CHECK(has(text, pack.file));
      CHECK(has(text, pack.sha256));
      CHECK(has(text, cache::hex64(pack.checksum)));
    }
    CHECK_FALSE(has(text, "signature"));
  }

  TEST_CASE("each field of a signed manifest changed alone is refused naming the signature") {
    Keys keys;
    const fs::path base = keys.dir / "signed";
    REQUIRE(write_set(base, &keys.release));
    const auto policy = trusting({keys.pub("release")});
    const std::string original = test::slurp(base / kManifestFile);
    auto manifest = decode_manifest(original, "manifest");
    REQUIRE(manifest);
    const std::vector<std::pair<const char*, std::function<void(Manifest&)>>> edits = {
        {"pack file", [](Manifest& m) { m.packs[PackKind::kScripts].file = "scripts.0000000000000000.pack"; }},
        {"pack bytes", [](Manifest& m) { m.packs[PackKind::kShaders].bytes += 1; }},
        {"pack checksum", [](Manifest& m) { m.packs[PackKind::kTextures].checksum ^= 1; }},
        {"pack sha256",
         [](Manifest& m) {
           char& digit = m.packs[PackKind::kScripts].sha256[5];
           digit = digit == '0' ? '1' : '0';
         }},
        {"signature value", [](Manifest& m) { m.signature->value[10] ^= 0x80; }},
    };
    for (const auto& [name, edit] : edits) {
      const std::string what = name;
      CAPTURE(what);
      Manifest changed = *manifest;
      edit(changed);
      test::spit(base / kManifestFile, encode_manifest(changed));
      const std::string message = refusal(base, policy);
      CHECK_MESSAGE(has(message, "its signature by key " + keys.release.public_key().id() + " does not match"),
                    message);
    }
    test::spit(base / kManifestFile, original);
    CHECK(CookedSet::open(base, policy));
  }

  TEST_CASE("a pack changed with its checksums recomputed opens without trust - and is refused under it") {
    Keys keys;
    const fs::path base = keys.dir / "signed";
    REQUIRE(write_set(base, &keys.release));
    const auto policy = trusting({keys.pub("release")});
    // One flipped byte of machine code, every checksum recomputed: checksums cannot tell.
    const test::EntryEdit flip = [](PackKind kind, const std::string& name, std::vector<std::byte> p) {
      if (kind == PackKind::kScripts && name.rfind("page:", 0) == 0) p[100] ^= std::byte{0x04};
      return p;
    };
    // In place, the manifest and the pack's index untouched: the pack opens against the manifest
    // (its payloads are checked only when read), and only its SHA-256 tells.
    test::patch_set_in_place(base, keys.dir / "in-place", flip);
    REQUIRE(CookedSet::open(keys.dir / "in-place"));
    const std::string in_place = refusal(keys.dir / "in-place", policy);
    CHECK_MESSAGE(has(in_place, "is not the one the signed manifest names"), in_place);
    CHECK(has(in_place, "scripts."));
    CHECK(has(in_place, "signed by key " + keys.release.public_key().id()));
    // Rewritten with every checksum and SHA-256 recomputed: the manifest then differs from what was
    // signed.
    test::rewrite_set(base, keys.dir / "recomputed", flip);
    REQUIRE(CookedSet::open(keys.dir / "recomputed"));
    const std::string recomputed = refusal(keys.dir / "recomputed", policy);
    CHECK_MESSAGE(has(recomputed, "its signature by key"), recomputed);
    CHECK(has(recomputed, "does not match"));
    // Unchanged, the copy opens: the refusals are the flipped byte's.
    test::rewrite_set(base, keys.dir / "same",
                      [](PackKind, const std::string&, std::vector<std::byte> p) { return p; });
    CHECK(CookedSet::open(keys.dir / "same", policy));
  }

  TEST_CASE("a malformed signature or SHA-256 in a manifest is an error at its JSON pointer") {
    Keys keys;
    REQUIRE(write_set(keys.dir / "signed", &keys.release));
    const std::string text = test::slurp(keys.dir / "signed" / kManifestFile);
    auto manifest = decode_manifest(text, "manifest");
    REQUIRE(manifest);
    const std::string sig = manifest->signature->key_id;
    const std::string sha = manifest->packs[PackKind::kShaders].sha256;
    auto replaced = [&](const std::string& from, const std::string& to) {
      std::string out = text;
      const auto at = out.find(from);
      REQUIRE(at != std::string::npos);
      return out.replace(at, from.size(), to);
    };
    const std::pair<std::string, std::string> cases[] = {
        {replaced("\"ed25519\"", "\"rsa\""), "/signature/algorithm"},
        {replaced(sig, "XYZ"), "/signature/key"},
        {replaced("\"value\": \"", "\"value\": \"00"), "/signature/value"},
        {replaced(sha, sha.substr(0, 63)), "/packs/shaders/sha256"},
        {replaced(",\n      \"sha256\": \"" + sha + "\"", ""), "/packs/shaders/sha256"},
        {replaced("\"sha256\": \"" + sha + "\"", "\"sha256\": 5"), "/packs/shaders/sha256"},
    };
    for (const auto& [changed, at] : cases) {
      const std::string pointer = at;
      CAPTURE(pointer);
      auto decoded = decode_manifest(changed, "m.json");
      REQUIRE_FALSE(decoded);
      CHECK_MESSAGE(has(decoded.error().message, "m.json: " + pointer + ": "), decoded.error().message);
    }
  }
}

TEST_SUITE("runtime") {
  TEST_CASE("a pack swapped for another set's pack of the same size is refused by its manifest checksum") {
    test::TempDir dir("swapped");
    // Two sets of one shape: the same entries and sizes, other page bytes.
    auto write = [](const fs::path& out, char fill) {
      CookedSetWriter writer(ShadersIdentity{{{"spirv-vulkan1.0", "ns"}}}, ScriptsIdentity{"build", "fingerprint"});
      writer.add_program("scripts/a.lua", bytes("bytecode of a"));
      writer.add_page("page-1", bytes(std::string(4096, fill)));
      writer.add_texture("textures/t.png", bytes("tx bytes"));
      REQUIRE(writer.commit(out, ManifestSigner{}));
    };
    write(dir / "a", '\xcc');
    write(dir / "b", '\xdd');
    REQUIRE(CookedSet::open(dir / "a"));
    // Pack files are named by kind and checksum: B's pack of each kind goes in under A's name.
    auto pack_of = [](const fs::path& set, const std::string& kind) {
      for (const auto& e : fs::directory_iterator(set))
        if (e.path().extension() == ".pack" && e.path().filename().string().rfind(kind + ".", 0) == 0) return e.path();
      return fs::path();
    };
    int swapped = 0;
    for (const std::string kind : {"shaders", "scripts", "textures"}) {
      const fs::path mine = pack_of(dir / "a", kind), other = pack_of(dir / "b", kind);
      if (mine.empty() || other.empty() || test::slurp(mine) == test::slurp(other)) continue;
      CAPTURE(kind);
      REQUIRE(fs::file_size(other) == fs::file_size(mine));
      const std::string kept = test::slurp(mine);
      test::spit(mine, test::slurp(other));
      auto set = CookedSet::open(dir / "a");
      REQUIRE_FALSE(set);
      CHECK_MESSAGE(has(set.error().message, mine.filename().string() + ": does not match the manifest"),
                    set.error().message);
      test::spit(mine, kept);
      ++swapped;
    }
    CHECK(swapped >= 1);
    CHECK(CookedSet::open(dir / "a"));
  }
}

TEST_SUITE("runtime") {
  TEST_CASE("a commit over a set whose pack was damaged in place rewrites it - intact packs are left as they are") {
    test::TempDir dir("sets");
    REQUIRE(write_set(dir.path(), nullptr));
    std::map<std::string, std::string> packs;
    for (const auto& entry : fs::directory_iterator(dir.path()))
      if (entry.path().extension() == ".pack") packs[entry.path().filename().string()] = test::slurp(entry.path());
    REQUIRE(packs.size() == 3);
    const fs::path damaged = dir / packs.begin()->first, intact = dir / std::next(packs.begin())->first;
    {
      std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(std::streamoff(packs.begin()->second.size() / 2));
      f.put('\x5a' ^ packs.begin()->second[packs.begin()->second.size() / 2]);
    }
    struct stat before {};
    REQUIRE(::stat(intact.c_str(), &before) == 0);
    REQUIRE(write_set(dir.path(), nullptr));
    CHECK(test::slurp(damaged) == packs.begin()->second);
    struct stat after {};
    REQUIRE(::stat(intact.c_str(), &after) == 0);
    CHECK(after.st_ino == before.st_ino);  // not written again
    auto set = CookedSet::open(dir.path());
    CHECK_MESSAGE(set, set.error().message);
  }
}

TEST_SUITE("runtime") {
  TEST_CASE("a commit waits for the output directory's lock - two writers never interleave their packs") {
    test::TempDir dir("sets");
    REQUIRE(write_set(dir.path(), nullptr));
    fs::remove(dir / "manifest.json");
    // Another writer (here: this test, through its own open file) holds the lock.
    const int held = ::open((dir / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(held >= 0);
    REQUIRE(::flock(held, LOCK_EX) == 0);
    std::atomic<bool> committed{false};
    std::thread writer([&] {
      CHECK(write_set(dir.path(), nullptr));
      committed = true;
    });
    // However long it is given, the commit does not write while the lock is held.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    CHECK_FALSE(committed.load());
    CHECK_FALSE(fs::exists(dir / "manifest.json"));
    ::flock(held, LOCK_UN);
    ::close(held);
    writer.join();
    CHECK(committed.load());
    CHECK(fs::exists(dir / "manifest.json"));
  }
}
