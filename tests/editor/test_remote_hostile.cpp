// Remote servers that answer in bad faith, through a real `kiln cook`: one that drips its reply a
// byte at a time for ever, and entries far larger than any Kiln writes. Each operation ends by its
// deadline and an entry's size is known before its body is read: the cook finishes locally with
// one warning, its memory bounded.

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <thread>
#include <vector>

#include "child_process.h"
#include "servers.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

std::size_t count_lines_with(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    n += text.substr(start, end - start).find(part) != std::string::npos;
    start = end + 1;
  }
  return n;
}

// A TCP server on loopback that hands every connection, once its first bytes arrived, to `answer`
// (on its own thread) until the client goes or the server stops.
class HostileServer {
 public:
  using Answer = std::function<void(int socket, const std::atomic<bool>& stopping)>;
  explicit HostileServer(Answer answer) : answer_(std::move(answer)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    REQUIRE(::listen(listener_, 64) == 0);
    accepter_ = std::thread([this] {
      for (;;) {
        const int c = ::accept(listener_, nullptr, nullptr);
        if (c < 0 || stopping_) {
          if (c >= 0) ::close(c);
          return;
        }
        answers_.emplace_back([this, c] {
          char in[4096];
          if (::recv(c, in, sizeof in, 0) > 0) answer_(c, stopping_);
          ::close(c);
        });
      }
    });
  }
  ~HostileServer() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    accepter_.join();
    for (auto& t : answers_) t.join();
  }
  std::uint16_t port() const { return port_; }

 private:
  Answer answer_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread accepter_;
  std::vector<std::thread> answers_;
};

// The start of a very long Redis bulk reply, one byte every 50 ms for as long as the client listens.
void drip_redis_bulk(int c, const std::atomic<bool>& stopping) {
  const std::string reply = "$100000\r\n";
  for (std::size_t i = 0; !stopping; ++i) {
    const char byte = i < reply.size() ? reply[i] : 'x';
    if (::send(c, &byte, 1, MSG_NOSIGNAL) != 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// To every HTTP request (a lookup, a write or a probe alike): "200 OK" announcing 500 MiB, then
// as many bytes as the client takes.
void flood_http(int c, const std::atomic<bool>& stopping) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 524288000\r\n\r\n";
  if (::send(c, head.data(), head.size(), MSG_NOSIGNAL) != ssize_t(head.size())) return;
  const std::vector<char> block(1 << 20, 'B');
  for (int i = 0; i < 500 && !stopping; ++i)
    if (::send(c, block.data(), block.size(), MSG_NOSIGNAL) != ssize_t(block.size())) return;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a redis remote that drips its reply for ever costs one warning - the cook finishes locally") {
    test::TempDir dir("remote-hostile");
    const fs::path project = test::copy_assets(dir);
    HostileServer server(drip_redis_bulk);
    // Every read gets a byte well within the timeout: only a deadline for the whole reply ends it.
    const auto r = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(),
                                      "--cache-root", (dir / "cache").string(), "--cache-remote",
                                      "redis://127.0.0.1:" + std::to_string(server.port()) + "/0",
                                      "--cache-remote-timeout", "500"});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK_MESSAGE(count_lines_with(r.output, "remote cache") == 1, r.output);
    CHECK_MESSAGE(count_lines_with(r.output, "no whole reply within the timeout") == 1, r.output);
  }

  TEST_CASE("remote entries far larger than any Kiln writes are refused before their body is read") {
    test::TempDir dir("remote-hostile");
    const fs::path project = test::copy_assets(dir);
    test::HttpCacheServer http(dir / "http");
    auto cook = [&](const std::string& name) {
      return test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / (name + "-out")).string(),
                                "--cache-root", (dir / (name + "-cache")).string(), "--cache-remote", http.url(),
                                "--cache-remote-timeout", "30000", "--json"});
    };
    const auto filled = cook("fill");
    REQUIRE_MESSAGE(filled.exit_code == 0, filled.output);
    // Every entry the first machine shared becomes 2 GiB (sparse: no disk), its header zeros.
    int entries = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(http.storage(), ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file()) {
        fs::resize_file(it->path(), 2ull << 30);
        ++entries;
      }
    REQUIRE(entries > 0);
    const auto second = cook("second");
    CHECK_MESSAGE(second.exit_code == 0, second.output);
    CHECK(test::slurp(dir / "second-out" / "manifest.json") == test::slurp(dir / "fill-out" / "manifest.json"));
    // Reading even one such body would take 2 GiB.
    CHECK_MESSAGE(second.max_rss_kib < 1024 * 1024, second.max_rss_kib);
    MESSAGE("peak memory of the second cook: " << second.max_rss_kib / 1024 << " MiB over " << entries << " entries");
  }

  TEST_CASE("an http remote that announces a huge reply to every request costs no memory - the cook finishes") {
    test::TempDir dir("remote-hostile");
    const fs::path project = test::copy_assets(dir);
    // The same cook without a remote: what the cook itself takes (sanitizers take far more).
    const auto alone = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "alone-out").string(),
                                          "--cache-root", (dir / "alone-cache").string()});
    REQUIRE_MESSAGE(alone.exit_code == 0, alone.output);
    HostileServer server(flood_http);
    const auto r = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(),
                                      "--cache-root", (dir / "cache").string(), "--cache-remote",
                                      "http://127.0.0.1:" + std::to_string(server.port()) + "/kiln",
                                      "--cache-remote-timeout", "5000"});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    // Lookups are refused from the entry's header, writes from the size of their reply: nothing of
    // the 500 MiB is kept (reading one reply would add 500 MiB to what the cook takes alone).
    CHECK_MESSAGE(r.max_rss_kib < alone.max_rss_kib + 256 * 1024, r.max_rss_kib << " KiB, alone " << alone.max_rss_kib);
    CHECK_MESSAGE(count_lines_with(r.output, "remote cache") == 1, r.output);
    MESSAGE("peak memory of the cook: " << r.max_rss_kib / 1024 << " MiB (alone " << alone.max_rss_kib / 1024
                                        << " MiB)");
  }
}
