#include <doctest/doctest.h>

#include <map>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>

#include "../../engine/runtime/src/pack_layout.h"
#include "../../engine/runtime/src/payload_spill.h"
#include "kiln/runtime/pack.h"
#include "kiln/runtime/pack_file.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using namespace kiln::runtime;
namespace fs = std::filesystem;

namespace {

std::vector<std::byte> bytes_of(const std::string& s) {
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}
using test::slurp;
using test::spit;

fs::path make_pack(const test::TempDir& dir, const std::string& file, bool reversed = false) {
  PackWriter writer(PackKind::kShaders, "build 1234 vulkan1.0 spirv");
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < 50; ++i) entries.emplace_back("variant-" + std::to_string(i), "payload " + std::to_string(i * i));
  if (reversed) std::reverse(entries.begin(), entries.end());
  for (auto& [n, p] : entries) writer.add(n, bytes_of(p));
  REQUIRE(writer.write(dir / file));
  return dir / file;
}

// `good` with its index entry `i` edited and every checksum recomputed: what someone who knows the
// format would forge.
std::string forged(std::string good, std::size_t i, const std::function<void(pack_layout::IndexEntry&)>& edit,
                   const std::function<void(std::string&)>& raw = {}) {
  using pack_layout::Header;
  using pack_layout::IndexEntry;
  Header h;
  std::memcpy(&h, good.data(), sizeof h);
  IndexEntry e;
  std::memcpy(&e, good.data() + sizeof(Header) + i * sizeof(IndexEntry), sizeof e);
  edit(e);
  std::memcpy(good.data() + sizeof(Header) + i * sizeof(IndexEntry), &e, sizeof e);
  if (raw) raw(good);
  const std::size_t meta_end = sizeof(Header) + h.count * sizeof(IndexEntry) + h.strings_length;
  h.meta_checksum = cache::xxh3_64(std::string_view(good.data() + sizeof(Header), meta_end - sizeof(Header)));
  h.header_checksum = 0;
  h.header_checksum = cache::xxh3_64(std::string_view(reinterpret_cast<const char*>(&h), sizeof h));
  std::memcpy(good.data(), &h, sizeof h);
  return good;
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE(
      "a forged index with valid checksums is refused: payloads outside the data - gaps - keys of other names - "
      "padding") {
    test::TempDir dir("pack");
    const std::string good = slurp(make_pack(dir, "good.pack"));
    REQUIRE(Pack::open(dir / "good.pack", PackKind::kShaders));
    pack_layout::IndexEntry first;
    std::memcpy(&first, good.data() + sizeof(pack_layout::Header), sizeof first);
    auto refusal = [&](const std::string& bytes) {
      spit(dir / "forged.pack", bytes);
      auto pack = Pack::open(dir / "forged.pack", PackKind::kShaders);
      REQUIRE_FALSE(pack);
      return pack.error().message;
    };
    const std::string at = (dir / "forged.pack").string() + ": index entry ";
    // An entry's payload moved past the file's end, or onto the next entry's bytes.
    CHECK(refusal(forged(good, 0, [&](auto& e) { e.offset = good.size() - 2; })).rfind(at + "0: its payload lies", 0) ==
          0);
    CHECK(refusal(forged(good, 3, [&](auto& e) { e.length += 8; })).rfind(at, 0) == 0);
    // A longer length on the last entry reaches past the file; a shorter one leaves bytes nobody owns.
    CHECK(refusal(forged(good, 49, [&](auto& e) { e.length += 1; })).rfind(at + "49: its payload lies", 0) == 0);
    CHECK(refusal(forged(good, 49, [&](auto& e) { e.length -= 1; })).find("bytes after the last payload") !=
          std::string::npos);
    // The key of another name: the hash of the name is checked, not only the order.
    CHECK(refusal(forged(good, 0, [](auto& e) { e.key_low ^= 1; })).find("its key is not the hash of its name") !=
          std::string::npos);
    // Two entries' names and keys swapped, payloads in place: each entry agrees with itself, but
    // lookups search the index by key and would miss.
    CHECK(refusal(forged(
                      good, 0, [](auto&) {},
                      [&](std::string& b) {
                        pack_layout::IndexEntry e0, e1;
                        char* index = b.data() + sizeof(pack_layout::Header);
                        std::memcpy(&e0, index, sizeof e0);
                        std::memcpy(&e1, index + sizeof e0, sizeof e1);
                        std::swap(e0.key_high, e1.key_high);
                        std::swap(e0.key_low, e1.key_low);
                        std::swap(e0.name_offset, e1.name_offset);
                        std::swap(e0.name_length, e1.name_length);
                        std::memcpy(index, &e0, sizeof e0);
                        std::memcpy(index + sizeof e0, &e1, sizeof e1);
                      }))
              .find("the index is not sorted by key") != std::string::npos);
    // A padding byte after the names or between payloads: covered by no checksum, so checked as zero.
    CHECK(refusal(forged(
                      good, 0, [](auto&) {}, [&](std::string& b) { b[first.offset - 1] = '\x01'; }))
              .find("padding after the names is not zero") != std::string::npos);
    bool padded = false;
    for (std::size_t i = 0; i + 1 < 50 && !padded; ++i) {
      pack_layout::IndexEntry e;
      std::memcpy(&e, good.data() + sizeof(pack_layout::Header) + i * sizeof e, sizeof e);
      if ((e.offset + e.length) % 8 == 0) continue;
      padded = true;
      CHECK(refusal(forged(
                        good, 0, [](auto&) {}, [&](std::string& b) { b[e.offset + e.length] = '\x01'; }))
                .find("the padding after its payload is not zero") != std::string::npos);
    }
    CHECK(padded);
  }

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

  TEST_CASE("a payload spill moves to a temp file past its memory limit - every byte reads back from either side") {
    PayloadSpill spill;
    std::vector<std::pair<std::uint64_t, std::string>> pieces;
    while (!spill.on_disk()) {
      REQUIRE(pieces.size() < 1000);  // 8 MiB in 64 KiB pieces spills long before
      std::string piece(std::size_t{1} << 16, char('a' + pieces.size() % 26));
      piece[pieces.size() % piece.size()] = '#';
      pieces.emplace_back(spill.append(bytes_of(piece)), std::move(piece));
    }
    CHECK(pieces.size() * (std::size_t{1} << 16) > PayloadSpill::kSpillAfterBytes);
    std::string after(100, 'z');
    pieces.emplace_back(spill.append(bytes_of(after)), after);
    CHECK(spill.error().empty());
    for (const auto& [at, piece] : pieces) {
      std::string read;
      REQUIRE(spill.read(at, piece.size(), [&](std::span<const std::byte> bytes) {
        read.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      }));
      CHECK(read == piece);
    }
  }

  TEST_CASE("a pack larger than the writer keeps in memory streams the same bytes - every entry reads back") {
    // Past PayloadSpill::kSpillAfterBytes the payloads live in a temp file: the pack must not change.
    test::TempDir dir("pack");
    PackWriter writer(PackKind::kTextures, "t");
    std::map<std::string, std::string> entries;
    std::uint64_t total = 0;
    for (int i = 0; total < (std::uint64_t{12} << 20); ++i) {
      std::string payload(std::size_t(100000 + i * 37), char('a' + i % 26));
      payload[std::size_t(i) % payload.size()] = char(i);
      total += payload.size();
      writer.add("tile-" + std::to_string(i), bytes_of(payload));
      entries.emplace("tile-" + std::to_string(i), std::move(payload));
    }
    auto whole = writer.encode("whole");
    REQUIRE_MESSAGE(whole, whole.error().message);
    std::vector<std::byte> streamed;
    std::size_t pieces = 0;
    REQUIRE(writer.stream("streamed", [&](std::span<const std::byte> piece) -> Status {
      streamed.insert(streamed.end(), piece.begin(), piece.end());
      ++pieces;
      return {};
    }));
    CHECK(streamed == *whole);
    CHECK(pieces > entries.size());  // in pieces, never the pack at once
    auto checksum = writer.checksum("checksum");
    REQUIRE(checksum);
    CHECK(*checksum == pack_checksum(*whole));
    REQUIRE(writer.write(dir / "big.pack"));
    auto pack = Pack::open(dir / "big.pack", PackKind::kTextures);
    REQUIRE_MESSAGE(pack, pack.error().message);
    REQUIRE((*pack)->size() == entries.size());
    for (const auto& [name, payload] : entries) {
      auto found = (*pack)->find(name);
      REQUIRE(found);
      REQUIRE(*found);
      CHECK(std::string(reinterpret_cast<const char*>((*found)->data()), (*found)->size()) == payload);
    }
    // A sink that fails ends the stream with its error, and write() leaves no file.
    int calls = 0;
    auto failed = writer.stream("failing", [&](std::span<const std::byte>) -> Status {
      return ++calls == 3 ? Status(make_error("disk full")) : Status();
    });
    CHECK(!failed);
    CHECK(calls == 3);
  }

  TEST_CASE("an open pack truncated on disk still answers every entry - it was read whole when opened") {
    test::TempDir dir("pack");
    PackWriter writer(PackKind::kTextures, "t");
    for (int i = 0; i < 64; ++i) writer.add("e" + std::to_string(i), bytes_of(std::string(8192, char('a' + i % 26))));
    REQUIRE(writer.write(dir / "big.pack"));
    auto pack = Pack::open(dir / "big.pack", PackKind::kTextures);
    REQUIRE_MESSAGE(pack, pack.error().message);
    // A mapping of the file would now end this process with SIGBUS on the first payload read.
    fs::resize_file(dir / "big.pack", 100);
    for (int i = 0; i < 64; ++i) {
      auto found = (*pack)->find("e" + std::to_string(i));
      REQUIRE_MESSAGE(found, found.error().message);
      REQUIRE(found->has_value());
      CHECK((*found)->size() == 8192);
      CHECK(std::all_of((*found)->begin(), (*found)->end(), [&](std::byte b) { return b == std::byte('a' + i % 26); }));
    }
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
      CHECK(r.error().message == (dir / "index.pack").string() + ": corrupt pack index or names (checksum mismatch)");
      bad = good;  // a name: covered by the same checksum
      bad[bad.find("variant-7")] ^= 0x20;
      spit(dir / "name.pack", bad);
      r = Pack::open(dir / "name.pack", PackKind::kShaders);
      REQUIRE_FALSE(r);
      CHECK(r.error().message == (dir / "name.pack").string() + ": corrupt pack index or names (checksum mismatch)");
      bad = good;
      bad[17] = char(bad[17] ^ 0x01);
      spit(dir / "header.pack", bad);
      r = Pack::open(dir / "header.pack", PackKind::kShaders);
      REQUIRE_FALSE(r);
      CHECK(r.error().message == (dir / "header.pack").string() + ": corrupt pack header (checksum mismatch)");
    }
    SUBCASE("another format version or kind") {
      std::string other = good;
      other[8] = 1;
      spit(dir / "v1.pack", other);
      auto r = Pack::open(dir / "v1.pack", PackKind::kShaders);
      REQUIRE_FALSE(r);
      CHECK(r.error().message == (dir / "v1.pack").string() +
                                     ": pack format version 1 (this build reads version 2); cook the project again");
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

  TEST_CASE("a hand-made header with valid checksums never points outside the file") {
    // Every 8-byte field of the header set to values that wrap or overrun, its checksum made valid
    // again: open() refuses it, or every entry it then serves lies inside the file (ASan watches).
    test::TempDir dir("pack");
    const std::string good = slurp(make_pack(dir, "good.pack"));
    const std::uint64_t nasty[] = {0,
                                   1,
                                   47,
                                   48,
                                   63,
                                   64,
                                   good.size() - 1,
                                   good.size(),
                                   good.size() + 1,
                                   UINT64_MAX,
                                   UINT64_MAX - 47,
                                   UINT64_MAX / 48 + 1,
                                   1ull << 63};
    int refused = 0;
    for (std::size_t field = 16; field < 56; field += 8)
      for (std::uint64_t value : nasty) {
        CAPTURE(field);
        CAPTURE(value);
        std::string bad = good;
        std::memcpy(bad.data() + field, &value, 8);
        std::memset(bad.data() + 56, 0, 8);
        const std::uint64_t sum = cache::xxh3_64(std::string_view(bad.data(), 64));
        std::memcpy(bad.data() + 56, &sum, 8);
        spit(dir / "bad.pack", bad);
        auto pack = Pack::open(dir / "bad.pack", PackKind::kShaders);
        if (!pack) {
          ++refused;
          CHECK(pack.error().message.rfind((dir / "bad.pack").string() + ": ", 0) == 0);
          continue;
        }
        for (const auto& name : (*pack)->names()) {
          auto found = (*pack)->find(name);
          if (found && found->has_value()) CHECK((*found)->size() <= good.size());
        }
      }
    CHECK(refused > 50);
  }

  TEST_CASE("a pack read one payload at a time gives what the whole pack gives - and refuses what it refuses") {
    test::TempDir dir("pack");
    const fs::path path = make_pack(dir, "good.pack");
    const std::string good = slurp(path);
    auto whole = Pack::open(path, PackKind::kShaders);
    REQUIRE(whole);
    {
      auto file = PackFile::open(path, PackKind::kShaders);
      REQUIRE_MESSAGE(file, file.error().message);
      CHECK((*file)->identity() == (*whole)->identity());
      CHECK((*file)->checksum() == (*whole)->checksum());
      CHECK((*file)->size() == (*whole)->size());
      for (const std::string& name : (*whole)->names()) {
        const auto read = (*file)->read(name);
        REQUIRE(read);
        REQUIRE(*read);
        const auto expected = **(*whole)->find(name);
        CHECK(std::equal(expected.begin(), expected.end(), (*read)->begin(), (*read)->end()));
      }
      const auto missing = (*file)->read("variant-50");
      REQUIRE(missing);
      CHECK_FALSE(*missing);
      CHECK_FALSE(PackFile::open(path, PackKind::kScripts));
    }

    // Forged metadata is refused as the whole pack's reader refuses it, naming the same place.
    const fs::path forged_path = dir / "forged.pack";
    for (const std::string& bytes :
         {forged(good, 0, [&](auto& e) { e.offset = good.size() - 2; }),
          forged(good, 0, [](auto& e) { e.key_low ^= 1; }), good.substr(0, 40), good.substr(0, good.size() - 1)}) {
      spit(forged_path, bytes);
      auto pack = Pack::open(forged_path, PackKind::kShaders);
      auto file = PackFile::open(forged_path, PackKind::kShaders);
      REQUIRE_FALSE(pack);
      REQUIRE_FALSE(file);
      CHECK(file.error().message == pack.error().message);
    }

    // A damaged payload is found when it is read; the others still read.
    pack_layout::IndexEntry first;
    std::memcpy(&first, good.data() + sizeof(pack_layout::Header), sizeof first);
    const std::string first_name = good.substr(first.name_offset, first.name_length);
    std::string damaged = good;
    damaged[first.offset] ^= 0x20;
    spit(forged_path, damaged);
    auto file = PackFile::open(forged_path, PackKind::kShaders);
    REQUIRE(file);
    const auto bad = (*file)->read(first_name);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.find("'" + first_name + "'") != std::string::npos);
    CHECK(bad.error().message.find("is corrupt (checksum mismatch)") != std::string::npos);
    std::size_t read = 0;
    for (const std::string& name : (*whole)->names())
      if (name != first_name) read += bool((*file)->read(name));
    CHECK(read == 49);

    // A pack cut short after it was opened: what lies past the cut cannot be read, and says so.
    fs::resize_file(forged_path, first.offset + first.length);
    std::size_t cut = 0;
    for (const std::string& name : (*whole)->names()) {
      const auto after = (*file)->read(name);
      if (!after) cut += after.error().message.find("cannot be read whole") != std::string::npos;
    }
    CHECK(cut == 49);
  }
}
