#include <doctest/doctest.h>

#include "kiln/cache/hash.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "blob_pattern.h"
#include "kiln/cache/blob_store.h"
#include "temp_dir.h"

using namespace kiln;
using namespace kiln::cache;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<BlobStore> open_store(const fs::path& root, BlobStoreOptions o = {}) {
  o.root = root;
  auto s = BlobStore::open(o);
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  return std::move(*s);
}

BlobNamespace open_ns(BlobStore& store, const std::string& build = "build-1") {
  auto ns = store.open_namespace("shaders", {{"compiler", "glslang 12"}, {"build", build}});
  REQUIRE(ns);
  return *ns;
}

Bytes read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  return Bytes(reinterpret_cast<const std::byte*>(s.data()), reinterpret_cast<const std::byte*>(s.data()) + s.size());
}

void write_file(const fs::path& p, const Bytes& b) {
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

void set_mtime(const fs::path& p, std::time_t t) {
  const struct timespec times[2] = {{t, 0}, {t, 0}};
  REQUIRE(::utimensat(AT_FDCWD, p.c_str(), times, 0) == 0);
}

std::size_t count_files(const fs::path& dir, const std::string& ext) {
  std::size_t n = 0;
  for (auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) ++n;
  return n;
}

}  // namespace

TEST_SUITE("cache") {
  TEST_CASE("a blob put is read back - by this store at once and by a new store from disk") {
    test::TempDir dir("blobs");
    const Bytes payload = test::pattern_payload(3);
    {
      auto store = open_store(dir / "root");
      auto ns = open_ns(*store);
      CHECK_FALSE(store->get(ns, test::pattern_key(3)));
      store->put(ns, test::pattern_key(3), payload);
      store->put(ns, test::pattern_key(4), {});
      CHECK(store->get(ns, test::pattern_key(3)) == payload);  // from the queue or the disk
      store->flush();
      CHECK(store->stats().writes == 2);
      CHECK(fs::exists(store->blob_path(ns, test::pattern_key(3))));
    }
    auto store = open_store(dir / "root");
    auto ns = open_ns(*store);
    CHECK(store->get(ns, test::pattern_key(3)) == payload);
    CHECK(store->get(ns, test::pattern_key(4)) == Bytes{});
    CHECK(store->stats().hits == 2);
    // Namespaces never share blobs.
    auto other = open_ns(*store, "build-2");
    CHECK(other.dir != ns.dir);
    CHECK_FALSE(store->get(other, test::pattern_key(3)));
    // Identity order does not matter.
    auto same = store->open_namespace("shaders", {{"build", "build-1"}, {"compiler", "glslang 12"}});
    CHECK(same->id == ns.id);
    CHECK(fs::exists(ns.dir / "NAMESPACE.txt"));
  }

  TEST_CASE("a corrupt blob is detected - deleted - counted - reported as a miss - and rebuilt") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "root", {.background_writes = false});
    auto ns = open_ns(*store);
    const BlobKey key = test::pattern_key(1000);
    const Bytes payload = test::pattern_payload(1000);
    store->put(ns, key, payload);
    const fs::path path = store->blob_path(ns, key);
    const Bytes good = read_file(path);
    REQUIRE(good.size() == 64 + payload.size());

    Bytes bad = good;
    SUBCASE("truncated payload") { bad.resize(good.size() - 1); }
    SUBCASE("truncated header") { bad.resize(20); }
    SUBCASE("empty file") { bad.clear(); }
    SUBCASE("flipped payload byte") { bad[64 + payload.size() / 2] ^= std::byte{1}; }
    SUBCASE("flipped header byte") { bad[33] ^= std::byte{0x40}; }
    SUBCASE("wrong magic") { bad[0] = std::byte{'X'}; }
    // Damage only one guard sees: the reserved header word (the header checksum alone covers it),
    // and a wrong magic under a recomputed header checksum (the magic check alone refuses it).
    SUBCASE("a reserved header byte flipped") { bad[48] ^= std::byte{1}; }
    SUBCASE("wrong magic with a recomputed header checksum") {
      bad[0] = std::byte{'X'};
      const std::uint64_t sum = kiln::cache::xxh3_64(std::span<const std::byte>(bad.data(), 56));
      for (int i = 0; i < 8; ++i) bad[56 + i] = std::byte((sum >> (8 * i)) & 0xff);
    }
    SUBCASE("appended garbage") { bad.push_back(std::byte{0}); }
    SUBCASE("another key's blob under this name") {
      store->put(ns, test::pattern_key(1), test::pattern_payload(1));
      bad = read_file(store->blob_path(ns, test::pattern_key(1)));
    }
    write_file(path, bad);

    CHECK_FALSE(store->get(ns, key));
    CHECK_FALSE(fs::exists(path));
    CHECK(store->stats().corrupt_deleted == 1);
    CHECK(store->stats().last_error.find("corrupt blob deleted") != std::string::npos);
    store->put(ns, key, payload);
    CHECK(store->get(ns, key) == payload);
  }

  TEST_CASE("a corrupt blob over 64 KiB (read in two parts) is detected - deleted and rebuilt") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "root", {.background_writes = false});
    auto ns = open_ns(*store);
    const BlobKey key = test::pattern_key(77);
    Bytes payload(200 * 1024);
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = std::byte(i * 131 % 251);
    store->put(ns, key, payload);
    const fs::path path = store->blob_path(ns, key);
    const Bytes good = read_file(path);
    REQUIRE(good.size() == 64 + payload.size());
    REQUIRE(store->get(ns, key) == payload);

    Bytes bad = good;
    SUBCASE("a byte flipped in the first 64 KiB") { bad[64 + 100] ^= std::byte{1}; }
    SUBCASE("a byte flipped past the first read") { bad[100 * 1024] ^= std::byte{0x80}; }
    SUBCASE("the last byte flipped") { bad.back() ^= std::byte{1}; }
    write_file(path, bad);

    CHECK_FALSE(store->get(ns, key));
    CHECK_FALSE(fs::exists(path));
    CHECK(store->stats().corrupt_deleted == 1);
    store->put(ns, key, payload);
    CHECK(store->get(ns, key) == payload);
  }

  TEST_CASE("verify finds and deletes corrupt blobs and leaves sound ones") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "root", {.background_writes = false});
    auto ns = open_ns(*store);
    for (int i = 0; i < 10; ++i) store->put(ns, test::pattern_key(i), test::pattern_payload(i));
    Bytes b = read_file(store->blob_path(ns, test::pattern_key(4)));
    b.back() ^= std::byte{0xff};
    write_file(store->blob_path(ns, test::pattern_key(4)), b);
    auto scan = store->verify();
    REQUIRE(scan);
    CHECK(scan->blobs == 9);
    CHECK(scan->corrupt == 1);
    CHECK(count_files(dir / "root", ".blob") == 9);
  }

  TEST_CASE("blobs not owned by the trusted user are never read - nor deleted") {
    test::TempDir dir("blobs");
    {
      auto store = open_store(dir / "root", {.background_writes = false});
      auto ns = open_ns(*store);
      store->put(ns, test::pattern_key(1), test::pattern_payload(1));
    }
    auto store = open_store(dir / "root", {.trusted_owner = ::geteuid() + 1});
    auto ns = open_ns(*store);
    CHECK_FALSE(store->get(ns, test::pattern_key(1)));
    CHECK(store->stats().foreign_rejected == 1);
    CHECK(fs::exists(store->blob_path(ns, test::pattern_key(1))));
  }

  TEST_CASE("the store directory is private to the user") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "a" / "root");
    struct stat st;
    REQUIRE(::stat((dir / "a" / "root").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    auto ns = open_ns(*store);
    REQUIRE(::stat(ns.dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);

    fs::create_directories(dir / "open");
    fs::permissions(dir / "open", fs::perms::all);
    open_store(dir / "open");
    REQUIRE(::stat((dir / "open").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);

    std::ofstream(dir / "file") << "x";
    auto bad = BlobStore::open({.root = dir / "file"});
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.find("not a directory") != std::string::npos);
    CHECK_FALSE((*BlobStore::open({.root = dir / "root"}))->open_namespace("Bad/Kind", {}));
  }

  TEST_CASE("prune keeps the size under the cap - dropping the least recently used first") {
    test::TempDir dir("blobs");
    auto store = open_store(
        dir / "root", {.max_bytes = 100 * 1024, .background_writes = false, .auto_prune_after_bytes = 1ull << 40});
    auto ns = open_ns(*store);
    const std::time_t base = std::time(nullptr) - 100000;
    std::uint64_t total = 0;
    for (int i = 0; i < 50; ++i) {
      Bytes payload(4000, std::byte(i));
      store->put(ns, test::pattern_key(i), payload);
      set_mtime(store->blob_path(ns, test::pattern_key(i)), base + i);
      total += 4064;
    }
    REQUIRE(total > 100 * 1024);
    // Reading blob 0 makes it the most recently used (touch_interval is 60 s, it is days old).
    REQUIRE(store->get(ns, test::pattern_key(0)));

    auto scan = store->prune();
    REQUIRE(scan);
    CHECK(scan->bytes <= 90 * 1024);
    CHECK(scan->bytes > 80 * 1024);
    CHECK(scan->blobs == count_files(dir / "root", ".blob"));
    CHECK(fs::exists(store->blob_path(ns, test::pattern_key(0))));
    CHECK(fs::exists(store->blob_path(ns, test::pattern_key(49))));
    CHECK_FALSE(fs::exists(store->blob_path(ns, test::pattern_key(1))));
    CHECK(store->stats().pruned_blobs == 50 - scan->blobs);
  }

  TEST_CASE("writing past the auto-prune threshold prunes without being asked") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "root", {.max_bytes = 64 * 1024, .auto_prune_after_bytes = 16 * 1024});
    auto ns = open_ns(*store);
    for (int i = 0; i < 64; ++i) store->put(ns, test::pattern_key(i), Bytes(4000, std::byte{1}));
    store->flush();
    CHECK(store->stats().pruned_blobs > 0);
    CHECK(count_files(dir / "root", ".blob") * 4064 <= 64 * 1024 + 16 * 1024);
  }

  TEST_CASE("prune keeps the newest namespaces of each kind and the ones in use") {
    test::TempDir dir("blobs");
    const std::time_t base = std::time(nullptr) - 100000;
    std::vector<fs::path> old_dirs;
    {
      auto store = open_store(dir / "root", {.background_writes = false});
      for (int b = 0; b < 4; ++b) {
        auto ns = open_ns(*store, "old-" + std::to_string(b));
        store->put(ns, test::pattern_key(b), test::pattern_payload(b));
        old_dirs.push_back(ns.dir);
      }
      auto jit = store->open_namespace("jit", {{"build", "old"}});
      set_mtime(jit->dir, base);
      for (int b = 0; b < 4; ++b) set_mtime(old_dirs[b], base + b);
    }
    auto store = open_store(dir / "root", {.keep_namespaces = 2});
    auto current = open_ns(*store, "current");
    REQUIRE(store->prune());
    CHECK(fs::exists(current.dir));
    CHECK(fs::exists(old_dirs[3]));  // the newest of the others
    CHECK_FALSE(fs::exists(old_dirs[0]));
    CHECK_FALSE(fs::exists(old_dirs[1]));
    CHECK_FALSE(fs::exists(old_dirs[2]));
    CHECK(fs::exists(dir / "root" / "jit"));  // another kind counts on its own
    CHECK(count_files(dir / "root" / "jit", ".txt") == 1);
    CHECK(store->stats().pruned_namespaces == 3);
  }

  TEST_CASE("a producer faster than the disk is held back by the bounded write queue") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "root", {.max_queued_bytes = 3 * 4096});
    auto ns = open_ns(*store);
    for (int i = 0; i < 200; ++i) store->put(ns, test::pattern_key(i), Bytes(4096 - 64, std::byte(i)));
    store->flush();
    const auto s = store->stats();
    CHECK(s.writes == 200);
    CHECK(s.peak_queued_bytes <= 3 * 4096);
    CHECK(s.peak_queued_bytes >= 4096);
    for (int i = 0; i < 200; i += 37) CHECK(store->get(ns, test::pattern_key(i)) == Bytes(4096 - 64, std::byte(i)));
  }

  TEST_CASE("prune removes temp files left by crashed writers - not fresh ones") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "root", {.background_writes = false});
    auto ns = open_ns(*store);
    store->put(ns, test::pattern_key(1), test::pattern_payload(1));
    const fs::path shard = store->blob_path(ns, test::pattern_key(1)).parent_path();
    std::ofstream(shard / ".tmp.1.2.stale.blob") << "partial";
    std::ofstream(shard / ".tmp.1.3.fresh.blob") << "partial";
    set_mtime(shard / ".tmp.1.2.stale.blob", std::time(nullptr) - 7200);
    REQUIRE(store->prune());
    CHECK_FALSE(fs::exists(shard / ".tmp.1.2.stale.blob"));
    CHECK(fs::exists(shard / ".tmp.1.3.fresh.blob"));
    CHECK(store->get(ns, test::pattern_key(1)));
  }
}

TEST_SUITE("cache") {
  TEST_CASE("prune removes loose files an older layout left in a kind's directory - never the files kinds keep") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "root", {.background_writes = false});
    auto ns = store->open_namespace("textures", {{"converter", "1"}});
    REQUIRE(ns);
    store->put(*ns, test::pattern_key(1), test::pattern_payload(1));
    fs::create_directories(dir / "root" / "jit");
    std::ofstream(dir / "root" / "textures" / "cook-v2-0123.tx") << "an older conversion";
    std::ofstream(dir / "root" / "textures" / ".tmp.7.1.fresh.tx") << "a live writer's";
    std::ofstream(dir / "root" / "jit" / "secret.key") << "the key";
    std::ofstream(dir / "root" / "textures" / "libtiff-version") << "kiln-libtiff-version 1\n";
    std::ofstream(dir / "root" / "elsewhere.txt") << "not a kind: not ours to touch";
    auto scan = store->prune();
    REQUIRE(scan);
    CHECK_FALSE(fs::exists(dir / "root" / "textures" / "cook-v2-0123.tx"));
    CHECK(fs::exists(dir / "root" / "textures" / ".tmp.7.1.fresh.tx"));
    CHECK(fs::exists(dir / "root" / "jit" / "secret.key"));
    CHECK(fs::exists(dir / "root" / "textures" / "libtiff-version"));
    CHECK(fs::exists(dir / "root" / "elsewhere.txt"));
    CHECK(scan->kinds.at("textures").removed == 1);
    CHECK(store->get(*ns, test::pattern_key(1)));
  }

  TEST_CASE("a namespace another store holds open is never pruned - however old") {
    test::TempDir dir("blobs");
    auto user = open_store(dir / "root", {.background_writes = false});
    auto in_use = open_ns(*user, "long-running");
    user->put(in_use, test::pattern_key(1), test::pattern_payload(1));
    set_mtime(in_use.dir, std::time(nullptr) - 100000);

    auto other = open_store(dir / "root", {.keep_namespaces = 1});
    open_ns(*other, "newer-1");
    open_ns(*other, "newer-2");
    REQUIRE(other->prune());
    CHECK(fs::exists(in_use.dir));
    CHECK(user->get(in_use, test::pattern_key(1)) == test::pattern_payload(1));
    CHECK(other->stats().pruned_namespaces == 0);

    user.reset();  // released: now it is an old namespace like any other
    REQUIRE(other->prune());
    CHECK_FALSE(fs::exists(in_use.dir));
    CHECK(other->stats().pruned_namespaces == 1);
  }

  TEST_CASE("odd files at a blob path are misses that never block - and are removed") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "root", {.background_writes = false});
    auto ns = open_ns(*store);
    store->put(ns, test::pattern_key(1), test::pattern_payload(1));
    const fs::path path = store->blob_path(ns, test::pattern_key(2));
    fs::create_directories(path.parent_path());

    SUBCASE("a FIFO") { REQUIRE(::mkfifo(path.c_str(), 0600) == 0); }
    SUBCASE("a symlink to a sound blob") { fs::create_symlink(store->blob_path(ns, test::pattern_key(1)), path); }
    SUBCASE("a directory") { fs::create_directory(path); }

    CHECK_FALSE(store->get(ns, test::pattern_key(2)));
    CHECK_FALSE(fs::exists(fs::symlink_status(path)));
    CHECK(store->stats().corrupt_deleted == 1);
    CHECK(store->get(ns, test::pattern_key(1)) == test::pattern_payload(1));
  }

  TEST_CASE("a sound blob of another format version is a miss and is left alone") {
    test::TempDir dir("blobs");
    auto store = open_store(dir / "root", {.background_writes = false});
    auto ns = open_ns(*store);
    store->put(ns, test::pattern_key(1), test::pattern_payload(1));
    const fs::path path = store->blob_path(ns, test::pattern_key(1));
    Bytes b = read_file(path);
    b[8] = std::byte{99};  // format version
    const std::uint64_t header_sum = xxh3_64(std::span<const std::byte>(b.data(), 56));
    for (int i = 0; i < 8; ++i) b[56 + i] = static_cast<std::byte>(header_sum >> (8 * i));
    write_file(path, b);

    CHECK_FALSE(store->get(ns, test::pattern_key(1)));
    CHECK(fs::exists(path));
    CHECK(store->stats().corrupt_deleted == 0);
    CHECK(store->stats().unreadable == 1);
    CHECK(store->stats().last_error.find("format version 99") != std::string::npos);
  }
}
