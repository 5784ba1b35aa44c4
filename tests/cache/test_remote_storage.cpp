// The remote level of the cache against real servers: redis-server and nginx (WebDAV PUT), each
// started on a loopback port for the test.

#include <doctest/doctest.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>

#include "blob_pattern.h"
#include "child_process.h"
#include "kiln/cache/blob_store.h"
#include "kiln/cache/remote_storage.h"
#include "servers.h"
#include "temp_dir.h"

using namespace kiln;
using namespace kiln::cache;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<RemoteStorage> remote(const std::string& url, int timeout_ms = 2000) {
  auto r = open_remote_storage({.url = url, .timeout = std::chrono::milliseconds(timeout_ms)});
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return std::shared_ptr<RemoteStorage>(std::move(*r));
}

Bytes bytes_of(const std::string& s) {
  return Bytes(reinterpret_cast<const std::byte*>(s.data()), reinterpret_cast<const std::byte*>(s.data()) + s.size());
}

Bytes read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return bytes_of(std::string((std::istreambuf_iterator<char>(in)), {}));
}

// A store at `root` behind `storage`, writing at once, its warnings collected.
struct RemoteStore {
  std::vector<std::string> warnings;
  std::mutex mu;
  std::unique_ptr<BlobStore> store;
  RemoteStore(const fs::path& root, std::shared_ptr<RemoteStorage> storage, bool read_only = false) {
    BlobStoreOptions o;
    o.root = root;
    o.background_writes = false;
    o.remote = std::move(storage);
    o.remote_read_only = read_only;
    o.warn = [this](const std::string& m) {
      std::lock_guard lock(mu);
      warnings.push_back(m);
    };
    auto s = BlobStore::open(o);
    REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
    store = std::move(*s);
  }
  BlobNamespace ns(const std::string& kind) {
    auto n = store->open_namespace(kind, {{"compiler", "test 1"}});
    REQUIRE(n);
    return *n;
  }
};

std::string remote_key(const BlobNamespace& ns, const BlobKey& key) {
  return "kiln/" + ns.kind + "/" + ns.id + "/" + key.hex();
}

// Both backends, each against its own fresh server.
template <class Body>
void for_each_backend(const test::TempDir& dir, Body body) {
  {
    INFO("redis");
    test::RedisServer server(dir / "redis");
    body(server);
  }
  {
    INFO("http");
    test::HttpCacheServer server(dir / "http");
    body(server);
  }
}

}  // namespace

TEST_SUITE("cache") {
  TEST_CASE("remote backends store - return and remove entries byte for byte - on real servers") {
    test::TempDir dir("remote-backends");
    for_each_backend(dir, [&](test::TestServer& server) {
      auto r = remote(server.url());
      CHECK(r->get("kiln/a").outcome == RemoteReply::kAbsent);
      Bytes big = test::pattern_payload(5);
      big.insert(big.end(), 1 << 20, std::byte{0});  // zero bytes and a megabyte: binary-safe
      REQUIRE(r->put("kiln/a", big).outcome == RemoteReply::kOk);
      const RemoteReply got = r->get("kiln/a");
      REQUIRE(got.outcome == RemoteReply::kOk);
      CHECK(got.value == big);
      CHECK(r->put("kiln/a", bytes_of("over")).outcome == RemoteReply::kOk);
      CHECK(r->get("kiln/a").value == bytes_of("over"));
      CHECK(r->remove("kiln/a").outcome == RemoteReply::kOk);
      CHECK(r->get("kiln/a").outcome == RemoteReply::kAbsent);
      CHECK(r->address().find("127.0.0.1:" + std::to_string(server.port())) != std::string::npos);

      // A server that stops answering (SIGSTOP: the kernel accepts, nobody replies) is a timeout, and
      // one that is gone is a refused connection: both "unreachable", with the reason.
      server.pause();
      const RemoteReply stalled = remote(server.url(), 200)->get("kiln/b");
      CHECK(stalled.outcome == RemoteReply::kUnreachable);
      CHECK_FALSE(stalled.problem.empty());
      server.stop();
      const RemoteReply gone = r->get("kiln/b");
      CHECK(gone.outcome == RemoteReply::kUnreachable);
      CHECK_FALSE(gone.problem.empty());
    });
  }

  TEST_CASE("a remote that refuses writes is refused - not unreachable") {
    test::TempDir dir("remote-refused");
    test::HttpCacheServer http(dir / "http");
    // Outside the WebDAV location nginx answers 405.
    const std::string elsewhere = "http://127.0.0.1:" + std::to_string(http.port()) + "/elsewhere";
    const RemoteReply put = remote(elsewhere)->put("kiln/a", bytes_of("x"));
    CHECK(put.outcome == RemoteReply::kRefused);
    CHECK(put.problem.find("405") != std::string::npos);
  }

  TEST_CASE("remote cache URLs are checked - naming the URL and the problem") {
    auto problem = [](const std::string& url) {
      auto r = open_remote_storage({.url = url});
      return r ? std::string() : r.error().message;
    };
    CHECK(problem("redis://127.0.0.1:6379/0").empty());
    CHECK(problem("redis://:secret@cache.example:7000").empty());
    CHECK(problem("http://[::1]:8080/kiln/").empty());
    CHECK(problem("ftp://host/x").find("expected redis://") != std::string::npos);
    CHECK(problem("redis://host:99999").find("port") != std::string::npos);
    CHECK(problem("redis://host/zero").find("database number") != std::string::npos);
    CHECK(problem("http:///path").find("no host") != std::string::npos);
    CHECK(problem("http://host/a?b").find("query") != std::string::npos);
    CHECK(problem("http://host:x/").find("'http://host:x/'") != std::string::npos);
    const std::string secret = problem("redis://farm:s3cret@host:99999/0");
    CHECK(secret.find("s3cret") == std::string::npos);
    CHECK(secret.find("redis://***@host:99999/0") != std::string::npos);
    auto r = open_remote_storage({.url = "redis://:secret@cache.example:7000/2"});
    REQUIRE(r);
    CHECK((*r)->address() == "redis://cache.example:7000/2");  // no password in messages
  }

  TEST_CASE("a store behind a remote serves another machine's entries - checked - and writes them locally") {
    test::TempDir dir("remote-store");
    for_each_backend(dir, [&](test::TestServer& server) {
      const std::string name = server.url().substr(0, 4);
      auto storage = remote(server.url());
      const BlobKey key = test::pattern_key(1);
      const Bytes payload = test::pattern_payload(1);
      {
        RemoteStore a(dir / (name + "-a"), storage);
        const BlobNamespace ns = a.ns("shaders");
        a.store->put(ns, key, payload);
        a.store->flush();
        CHECK(a.store->remote_use().remote_writes == 1);
        CHECK(storage->get(remote_key(ns, key)).value == read_file(a.store->blob_path(ns, key)));
      }
      RemoteStore b(dir / (name + "-b"), storage);
      const BlobNamespace ns = b.ns("shaders");
      auto got = b.store->get(ns, key);
      REQUIRE(got);
      CHECK(*got == payload);
      b.store->flush();
      CHECK(fs::exists(b.store->blob_path(ns, key)));  // kept locally: the next lookup stays here
      CHECK(b.store->get(ns, key) == payload);
      const KindUse use = b.store->remote_use();
      CHECK(use.remote_hits == 1);
      CHECK(use.remote_bytes_read == read_file(b.store->blob_path(ns, key)).size());
      CHECK(b.warnings.empty());

      // A damaged remote entry is never used, is counted, and the next put of its key replaces it.
      const BlobKey other = test::pattern_key(2);
      b.store->put(ns, other, test::pattern_payload(2));
      b.store->flush();
      const Bytes good = storage->get(remote_key(ns, other)).value;
      Bytes flipped = good;
      flipped.back() ^= std::byte{0x40};
      REQUIRE(storage->put(remote_key(ns, other), flipped).outcome == RemoteReply::kOk);
      RemoteStore c(dir / (name + "-c"), storage);
      CHECK_FALSE(c.store->get(c.ns("shaders"), other));
      CHECK(c.store->remote_use().remote_rejected == 1);
      c.store->put(c.ns("shaders"), other, test::pattern_payload(2));
      c.store->flush();
      CHECK(storage->get(remote_key(ns, other)).value == good);
      // Another key's entry under this key (a copied or crossed file) fails its header's key check.
      REQUIRE(storage->put(remote_key(ns, other), good).outcome == RemoteReply::kOk);
      REQUIRE(storage->put(remote_key(ns, key), good).outcome == RemoteReply::kOk);
      RemoteStore d(dir / (name + "-d"), storage);
      CHECK_FALSE(d.store->get(d.ns("shaders"), key));
      CHECK(d.store->remote_use().remote_rejected == 1);
    });
  }

  TEST_CASE("a key holding another type on redis is a rejected entry - the remote stays in use") {
    test::TempDir dir("remote-wrongtype");
    test::RedisServer server(dir / "redis");
    auto storage = remote(server.url());
    RemoteStore a(dir / "a", storage);
    const BlobNamespace ns = a.ns("shaders");
    a.store->put(ns, test::pattern_key(1), test::pattern_payload(1));
    a.store->put(ns, test::pattern_key(2), test::pattern_payload(2));
    a.store->flush();
    const std::string cli = "/usr/bin/redis-cli";
    const std::string port = std::to_string(server.port());
    REQUIRE(test::run_process({cli, "-p", port, "DEL", remote_key(ns, test::pattern_key(1))}).exit_code == 0);
    REQUIRE(test::run_process({cli, "-p", port, "LPUSH", remote_key(ns, test::pattern_key(1)), "x"}).exit_code == 0);
    RemoteStore b(dir / "b", storage);
    CHECK_FALSE(b.store->get(b.ns("shaders"), test::pattern_key(1)));
    CHECK(b.store->get(b.ns("shaders"), test::pattern_key(2)) == test::pattern_payload(2));
    CHECK(b.store->remote_use().remote_rejected == 1);
    CHECK(b.store->remote_use().remote_hits == 1);
    CHECK(b.warnings.empty());
  }

  TEST_CASE("redis users and passwords come from the URL - a wrong one is one warning and never printed") {
    test::TempDir dir("remote-auth");
    test::RedisServer server(dir / "redis", {"--user", "farm", "on", ">s3cret", "~*", "+@all"});
    const std::string at = "127.0.0.1:" + std::to_string(server.port()) + "/0";
    auto good = remote("redis://farm:s3cret@" + at);
    REQUIRE(good->put("kiln/a", bytes_of("x")).outcome == RemoteReply::kOk);
    CHECK(good->get("kiln/a").value == bytes_of("x"));
    CHECK(good->address().find("s3cret") == std::string::npos);
    RemoteStore s(dir / "local", remote("redis://farm:wrong@" + at));
    CHECK_FALSE(s.store->get(s.ns("shaders"), test::pattern_key(1)));
    CHECK_FALSE(s.store->get(s.ns("shaders"), test::pattern_key(2)));
    REQUIRE(s.warnings.size() == 1);
    CHECK(s.warnings[0].find("wrong") == std::string::npos);
    CHECK(s.warnings[0].find("farm") == std::string::npos);
  }

  TEST_CASE("a store that fills the remote sends its local hits the remote lacks - once") {
    test::TempDir dir("remote-fill");
    test::HttpCacheServer server(dir / "http");
    auto storage = remote(server.url());
    {  // filled before any remote was set
      auto local = BlobStore::open({.root = dir / "warm", .background_writes = false});
      REQUIRE(local);
      auto ns = (*local)->open_namespace("shaders", {{"compiler", "test 1"}});
      REQUIRE(ns);
      for (int i = 0; i < 5; ++i) (*local)->put(*ns, test::pattern_key(i), test::pattern_payload(i));
    }
    BlobStoreOptions o;
    o.root = dir / "warm";
    o.remote = storage;
    o.remote_fill_from_local = true;
    auto filler = BlobStore::open(o);
    REQUIRE(filler);
    auto ns = (*filler)->open_namespace("shaders", {{"compiler", "test 1"}});
    REQUIRE(ns);
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < 5; ++i) CHECK((*filler)->get(*ns, test::pattern_key(i)) == test::pattern_payload(i));
      (*filler)->flush();  // sent before the next round asks whether the remote has them
    }
    CHECK((*filler)->remote_use().remote_writes == 5);  // the second round found them there
    RemoteStore other(dir / "other", storage);
    for (int i = 0; i < 5; ++i)
      CHECK(other.store->get(other.ns("shaders"), test::pattern_key(i)) == test::pattern_payload(i));
  }

  TEST_CASE("with a farm key a fill replaces an untagged entry - and a keyed store uses only tagged entries") {
    test::TempDir dir("remote-keyed");
    test::HttpCacheServer server(dir / "http");
    auto storage = remote(server.url());
    trust::HmacKey farm{}, other{};
    for (std::size_t i = 0; i < farm.size(); ++i) farm[i] = std::byte(i + 1), other[i] = std::byte(200 - i);
    {  // an unkeyed machine fills the remote first, and a warm local cache is kept aside
      RemoteStore unkeyed(dir / "unkeyed", storage);
      const auto ns = unkeyed.ns("shaders");
      for (int i = 0; i < 3; ++i) unkeyed.store->put(ns, test::pattern_key(i), test::pattern_payload(i));
      unkeyed.store->flush();
    }
    const auto keyed_store = [&](const fs::path& root, trust::HmacKey key, bool fill) {
      BlobStoreOptions o;
      o.root = root;
      o.background_writes = false;
      o.remote = storage;
      o.remote_fill_from_local = fill;
      o.remote_keys = {key};
      auto opened = BlobStore::open(o);
      REQUIRE(opened);
      return std::move(*opened);
    };
    {  // a keyed reader takes none of the untagged entries
      auto reader = keyed_store(dir / "reader", farm, false);
      auto ns = reader->open_namespace("shaders", {{"compiler", "test 1"}});
      REQUIRE(ns);
      for (int i = 0; i < 3; ++i) CHECK_FALSE(reader->get(*ns, test::pattern_key(i)));
      CHECK(reader->remote_use().remote_untrusted == 3);
      CHECK(reader->remote_use().remote_hits == 0);
    }
    {  // a keyed shard whose local cache has them replaces the untagged entries with tagged ones
      auto filler = keyed_store(dir / "unkeyed", farm, true);
      auto ns = filler->open_namespace("shaders", {{"compiler", "test 1"}});
      REQUIRE(ns);
      for (int i = 0; i < 3; ++i) CHECK(filler->get(*ns, test::pattern_key(i)) == test::pattern_payload(i));
      filler->flush();
      CHECK(filler->remote_use().remote_writes == 3);
    }
    for (const auto& [key, usable] : {std::pair{farm, true}, std::pair{other, false}}) {
      const bool expect = usable;
      CAPTURE(expect);
      auto reader = keyed_store(dir / ("after-" + std::to_string(expect)), key, false);
      auto ns = reader->open_namespace("shaders", {{"compiler", "test 1"}});
      REQUIRE(ns);
      for (int i = 0; i < 3; ++i) {
        auto got = reader->get(*ns, test::pattern_key(i));
        CHECK(bool(got) == expect);
        if (got) CHECK(*got == test::pattern_payload(i));
      }
      CHECK(reader->remote_use().remote_untrusted == (expect ? 0u : 3u));
    }
  }

  TEST_CASE("script machine code and pipeline data never reach the remote - nor are read from it") {
    test::TempDir dir("remote-local-kinds");
    test::RedisServer server(dir / "redis");
    auto storage = remote(server.url());
    const BlobKey key = test::pattern_key(3);
    RemoteStore a(dir / "a", storage);
    for (const std::string kind : {"jit", "pipelines"}) {
      INFO(kind);
      const BlobNamespace ns = a.ns(kind);
      CHECK_FALSE(ns.shared);
      a.store->put(ns, key, test::pattern_payload(3));
      a.store->flush();
      CHECK(storage->get(remote_key(ns, key)).outcome == RemoteReply::kAbsent);
      // A sound entry planted on the server under the name it would have is not read either.
      REQUIRE(storage->put(remote_key(ns, key), read_file(a.store->blob_path(ns, key))).outcome == RemoteReply::kOk);
      RemoteStore b(dir / ("b-" + kind), storage);
      CHECK_FALSE(b.store->get(b.ns(kind), key));
    }
    CHECK(a.store->remote_use().remote_writes == 0);
    // Textures converted from a file's identity (an inode) are this machine's alone too.
    auto local = a.store->open_namespace("textures", {{"converter", "1"}}, {}, /*local=*/true);
    REQUIRE(local);
    CHECK_FALSE(local->shared);
    CHECK(a.ns("textures").shared);
  }

  TEST_CASE("a read-only remote is read and never written") {
    test::TempDir dir("remote-read-only");
    test::HttpCacheServer server(dir / "http");
    auto storage = remote(server.url());
    const BlobKey key = test::pattern_key(4);
    {
      RemoteStore writer(dir / "writer", storage);
      writer.store->put(writer.ns("textures"), key, test::pattern_payload(4));
      writer.store->flush();
    }
    RemoteStore reader(dir / "reader", storage, /*read_only=*/true);
    CHECK(reader.store->get(reader.ns("textures"), key) == test::pattern_payload(4));
    reader.store->put(reader.ns("textures"), test::pattern_key(5), test::pattern_payload(5));
    reader.store->flush();
    CHECK(storage->get(remote_key(reader.ns("textures"), test::pattern_key(5))).outcome == RemoteReply::kAbsent);
    CHECK(reader.store->remote_use().remote_writes == 0);
    CHECK(reader.store->remote_read_only());
  }

  TEST_CASE("a remote that goes away is reported once - and the store goes on locally") {
    test::TempDir dir("remote-down");
    test::RedisServer server(dir / "redis");
    RemoteStore s(dir / "local", remote(server.url(), 300));
    const BlobNamespace ns = s.ns("shaders");
    s.store->put(ns, test::pattern_key(1), test::pattern_payload(1));
    s.store->flush();
    server.stop();
    for (int i = 2; i < 40; ++i) {
      CHECK_FALSE(s.store->get(ns, test::pattern_key(i)));
      s.store->put(ns, test::pattern_key(i), test::pattern_payload(i));
    }
    s.store->flush();
    for (int i = 1; i < 40; ++i) CHECK(s.store->get(ns, test::pattern_key(i)) == test::pattern_payload(i));
    REQUIRE(s.warnings.size() == 1);
    CHECK(s.warnings[0].find("unavailable") != std::string::npos);
    CHECK(s.warnings[0].find(std::to_string(server.port())) != std::string::npos);
    CHECK(s.store->remote_use().remote_errors == 1);
    CHECK_FALSE(s.store->remote_trouble().empty());
  }
}

TEST_SUITE("cache/concurrent") {
  TEST_CASE("threads share one remote level - every entry arrives once and reads back") {
    test::TempDir dir("remote-threads");
    test::RedisServer server(dir / "redis");
    auto storage = remote(server.url());
    {
      RemoteStore a(dir / "a", storage);
      const BlobNamespace ns = a.ns("shaders");
      std::vector<std::thread> threads;
      for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
          for (int i = t * 50; i < t * 50 + 50; ++i) {
            CHECK_FALSE(a.store->get(ns, test::pattern_key(i)));
            a.store->put(ns, test::pattern_key(i), test::pattern_payload(i));
          }
        });
      for (auto& t : threads) t.join();
      a.store->flush();
      CHECK(a.store->remote_use().remote_writes == 200);
    }
    RemoteStore b(dir / "b", storage);
    const BlobNamespace ns = b.ns("shaders");
    std::atomic<int> hits{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = t; i < 200; i += 4) hits += b.store->get(ns, test::pattern_key(i)) == test::pattern_payload(i);
      });
    for (auto& t : threads) t.join();
    CHECK(hits == 200);
    CHECK(b.store->remote_use().remote_hits == 200);
  }
}
