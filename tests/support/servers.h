#pragma once
// Real servers for the remote cache tests: redis-server, and nginx as an HTTP cache (WebDAV PUT
// and DELETE), each on a free loopback port with its files in the test's directory, started by
// the constructor (which waits until the server answers) and stopped by the destructor.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "child_process.h"

namespace kiln::test {

// A loopback port nothing listens on now.
std::uint16_t free_loopback_port();

class TestServer {
 public:
  virtual ~TestServer();
  std::uint16_t port() const { return port_; }
  // What cache.remote is set to for this server.
  virtual std::string url() const = 0;
  void pause();   // SIGSTOP: connections are accepted by the kernel and never answered
  void resume();  // SIGCONT
  void stop();    // SIGTERM and wait; the port then refuses connections

 protected:
  void start(const std::vector<std::string>& argv, const std::string& name);
  std::unique_ptr<ChildProcess> process_;
  std::uint16_t port_ = 0;
  std::filesystem::path dir_;
};

class RedisServer : public TestServer {
 public:
  // `extra`: more redis-server arguments ("--user", "name", "on", ">password", ...).
  explicit RedisServer(const std::filesystem::path& dir, const std::vector<std::string>& extra = {});
  std::string url() const override;  // redis://127.0.0.1:<port>/0
};

class HttpCacheServer : public TestServer {
 public:
  explicit HttpCacheServer(const std::filesystem::path& dir);
  std::string url() const override;  // http://127.0.0.1:<port>/cache
  // Where the server keeps what is PUT under /cache.
  std::filesystem::path storage() const { return dir_ / "www" / "cache"; }
};

}  // namespace kiln::test
