#include "servers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace kiln::test {
namespace fs = std::filesystem;

std::uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  const bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok) throw std::runtime_error("no free loopback port");
  return ntohs(addr.sin_port);
}

namespace {

bool accepts_connections(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  const bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (fd >= 0) ::close(fd);
  return ok;
}

}  // namespace

TestServer::~TestServer() { stop(); }

void TestServer::start(const std::vector<std::string>& argv, const std::string& name) {
  process_ = std::make_unique<ChildProcess>(argv);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  // Ours once it answers while running: a server that died (its port taken by another process
  // since free_loopback_port) is reported, never mistaken for the other process.
  while (!accepts_connections(port_) || process_->exited()) {
    if (process_->exited() || std::chrono::steady_clock::now() > deadline) {
      process_->kill(SIGKILL);
      const std::string output = process_->read_all();
      process_.reset();
      throw std::runtime_error(name + " did not start on port " + std::to_string(port_) + ": " + output);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void TestServer::pause() {
  if (process_) ::kill(process_->pid(), SIGSTOP);
}
void TestServer::resume() {
  if (process_) ::kill(process_->pid(), SIGCONT);
}
void TestServer::stop() {
  if (!process_) return;
  ::kill(process_->pid(), SIGCONT);
  process_->kill(SIGTERM);
  process_->wait();
  process_.reset();
}

RedisServer::RedisServer(const fs::path& dir, const std::vector<std::string>& extra) {
  dir_ = dir;
  fs::create_directories(dir_);
  port_ = free_loopback_port();
  std::vector<std::string> argv = {"/usr/bin/redis-server",
                                   "--port",
                                   std::to_string(port_),
                                   "--bind",
                                   "127.0.0.1",
                                   "--dir",
                                   dir_.string(),
                                   "--save",
                                   "",
                                   "--appendonly",
                                   "no",
                                   "--protected-mode",
                                   "no",
                                   "--logfile",
                                   (dir_ / "redis.log").string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  start(argv, "redis-server");
}

std::string RedisServer::url() const { return "redis://127.0.0.1:" + std::to_string(port_) + "/0"; }

HttpCacheServer::HttpCacheServer(const fs::path& dir) {
  dir_ = dir;
  fs::create_directories(storage());
  port_ = free_loopback_port();
  const std::string d = dir_.string();
  std::ofstream conf(dir_ / "nginx.conf");
  // One process: pause() stops all of it, and nothing hands requests to "nobody" (who could not
  // write the test's directory when the tests run as root).
  conf << "daemon off;\nmaster_process off;\npid " << d << "/nginx.pid;\nerror_log " << d << "/error.log;\n"
       << "events { worker_connections 256; }\n"
       << "http {\n  access_log off;\n  client_body_temp_path " << d << "/body;\n  proxy_temp_path " << d
       << "/proxy;\n  fastcgi_temp_path " << d << "/fastcgi;\n  uwsgi_temp_path " << d << "/uwsgi;\n  scgi_temp_path "
       << d << "/scgi;\n  client_max_body_size 0;\n"
       << "  server {\n    listen 127.0.0.1:" << port_ << ";\n    root " << d << "/www;\n"
       << "    location /cache/ {\n      dav_methods PUT DELETE;\n      create_full_put_path on;\n"
       << "      dav_access user:rw;\n    }\n  }\n}\n";
  conf.close();
  start({"/usr/sbin/nginx", "-p", d, "-c", (dir_ / "nginx.conf").string(), "-e", (dir_ / "error.log").string()},
        "nginx");
}

std::string HttpCacheServer::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/cache"; }

}  // namespace kiln::test
