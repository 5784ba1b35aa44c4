#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "kiln/runtime/pack.h"
#include "temp_dir.h"

using namespace kiln;
using namespace kiln::runtime;
namespace fs = std::filesystem;

namespace {

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void spit(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary | std::ios::trunc) << s; }

fs::path make_pack(const test::TempDir& dir, const std::string& file, bool reversed = false) {
  PackWriter writer(PackKind::kShaders, "build 1234 vulkan1.0 spirv");
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < 50; ++i) entries.emplace_back("variant-" + std::to_string(i), "payload " + std::to_string(i * i));
  if (reversed) std::reverse(entries.begin(), entries.end());
  for (auto& [n, p] : entries) writer.add(n, bytes_of(p));
  REQUIRE(writer.write(dir / file));
  return dir / file;
}

}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("a pack finds every entry by name - the same entries make the same bytes") {
  test::TempDir dir("pack");
  const fs::path path = make_pack(dir, "a.pack");
  CHECK(slurp(path) == slurp(make_pack(dir, "b.pack", true)));  // the order entries were added does not matter
  auto pack = Pack::open(path, PackKind::kShaders);
  REQUIRE_MESSAGE(pack, pack.error().message);
  CHECK((*pack)->identity() == "build 1234 vulkan1.0 spirv");
  CHECK((*pack)->size() == 50);
  for (int i = 0; i < 50; ++i) {
    auto found = (*pack)->find("variant-" + std::to_string(i));
    REQUIRE(found);
    REQUIRE(found->has_value());
    const std::string want = "payload " + std::to_string(i * i);
    CHECK(std::string(reinterpret_cast<const char*>((*found)->data()), (*found)->size()) == want);
  }
  auto absent = (*pack)->find("variant-50");
  REQUIRE(absent);
  CHECK_FALSE(absent->has_value());
  CHECK((*pack)->names().size() == 50);
}

TEST_CASE("truncated - bit-flipped - other-version and other-kind packs are refused naming the pack and the entry") {
  test::TempDir dir("pack");
  const fs::path path = make_pack(dir, "good.pack");
  const std::string good = slurp(path);
  SUBCASE("truncated") {
    spit(dir / "cut.pack", good.substr(0, good.size() / 3));
    auto r = Pack::open(dir / "cut.pack", PackKind::kShaders);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.rfind((dir / "cut.pack").string() + ": truncated pack", 0) == 0);
    spit(dir / "tiny.pack", good.substr(0, 10));
    auto tiny = Pack::open(dir / "tiny.pack", PackKind::kShaders);
    REQUIRE_FALSE(tiny);
    CHECK(tiny.error().message == (dir / "tiny.pack").string() + ": truncated pack (10 bytes, less than its header)");
  }
  SUBCASE("a bit flipped in a payload fails that entry only") {
    std::string bad = good;
    const auto at = bad.find("payload 49");  // variant-7's payload
    REQUIRE(at != std::string::npos);
    bad[at + 9] = char(bad[at + 9] ^ 0x04);
    spit(dir / "flip.pack", bad);
    auto pack = Pack::open(dir / "flip.pack", PackKind::kShaders);
    REQUIRE(pack);
    auto broken = (*pack)->find("variant-7");
    REQUIRE_FALSE(broken);
    CHECK(broken.error().message.rfind((dir / "flip.pack").string() + ": entry 'variant-7' (", 0) == 0);
    CHECK(broken.error().message.find(") is corrupt (checksum mismatch)") != std::string::npos);
    CHECK((*pack)->find("variant-8"));
  }
  SUBCASE("a bit flipped in the index or the header") {
    std::string bad = good;
    bad[64 + 20] = char(bad[64 + 20] ^ 0x01);
    spit(dir / "index.pack", bad);
    auto r = Pack::open(dir / "index.pack", PackKind::kShaders);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == (dir / "index.pack").string() + ": corrupt pack index (checksum mismatch)");
    bad = good;
    bad[17] = char(bad[17] ^ 0x01);
    spit(dir / "header.pack", bad);
    r = Pack::open(dir / "header.pack", PackKind::kShaders);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == (dir / "header.pack").string() + ": corrupt pack header (checksum mismatch)");
  }
  SUBCASE("another format version or kind") {
    std::string other = good;
    other[8] = 2;
    spit(dir / "v2.pack", other);
    auto r = Pack::open(dir / "v2.pack", PackKind::kShaders);
    REQUIRE_FALSE(r);
    CHECK(r.error().message ==
          (dir / "v2.pack").string() + ": pack format version 2 (this build reads version 1); cook the project again");
    auto kind = Pack::open(path, PackKind::kTextures);
    REQUIRE_FALSE(kind);
    CHECK(kind.error().message == path.string() + ": a shaders pack where a textures pack was expected");
  }
  SUBCASE("not a pack") {
    spit(dir / "text.pack", std::string(100, 'x'));
    auto r = Pack::open(dir / "text.pack", PackKind::kShaders);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == (dir / "text.pack").string() + ": not a Kiln pack (bad magic)");
  }
}
}
