#pragma once
// The editor's page: an HTTP server (cpp-httplib) that serves a live view of the project to a
// browser. The page's files are part of the binary; its data comes as the project's state
// (state()) and the editor's events, pushed to every open page by server-sent events.
//
// Who may use it: every request carries the session's random token (in the URL of the first visit,
// then as a cookie the server sets); the Host header must name this server and an Origin header,
// when there is one, this server's origin (a page of another site, or a DNS name rebound to this
// address, is refused). The page may write only a material's parameters, as a JSON file inside the
// project's materials/ (written atomically), and nothing at all with `read_only`.
//
// Thread-safety: publish() and set_state() may be called from any thread (the editor's event loop
// calls them); requests are answered on the server's own threads.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "kiln/core/result.h"

namespace httplib {
class Server;
}

namespace kiln::editor {

struct PageServerOptions {
  std::string host = "127.0.0.1";  // the address to listen on
  int port = 0;                    // 0: one the system picks
  bool read_only = false;          // the page may not write material files
  std::filesystem::path root;      // the project
  std::filesystem::path pictures;  // previews and thumbnails, served under /pictures/
};

// "[ADDR:]PORT" as --serve takes it: the address defaults to 127.0.0.1; a port from 0 to 65535.
Result<std::pair<std::string, int>> parse_serve_address(std::string_view text);

class PageServer {
 public:
  static Result<std::unique_ptr<PageServer>> start(PageServerOptions options);
  ~PageServer();  // open pages' streams end; the server stops
  PageServer(const PageServer&) = delete;
  PageServer& operator=(const PageServer&) = delete;

  // The page's address with the session's token: what the user opens.
  const std::string& url() const { return url_; }
  int port() const { return port_; }
  // An event for every open page, and for the log a page gets when it opens (unless `logged` is
  // false: figures sent every few seconds).
  void publish(const nlohmann::json& event, bool logged = true);
  // Where previews and thumbnails are (a new editor session has a directory of its own).
  void set_pictures(std::filesystem::path dir);
  // The project as it is now (materials, shaders, scripts, textures, caches): what a page shows.
  void set_state(nlohmann::json state);

 private:
  struct Stream;  // one open page's server-sent events
  explicit PageServer(PageServerOptions options);
  void route();
  // Why a request is refused (401 or 403, and the reason), or 0.
  std::pair<int, std::string> refusal(const std::string& host, const std::string& origin, const std::string& token,
                                      bool writes) const;
  bool allowed_host(std::string_view host) const;
  Result<std::string> write_material(const nlohmann::json& edit);  // the file written, project-relative

  PageServerOptions options_;
  std::string token_, url_;
  int port_ = 0;
  std::set<std::string> hosts_;  // what Host may say: this server's names, with the port
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;

  std::mutex mu_;  // guards what follows
  std::condition_variable changed_;
  std::string state_ = "{}";     // serialised
  std::deque<std::string> log_;  // the last events, serialised
  std::set<Stream*> streams_;
  bool stopping_ = false;
  std::mutex write_mu_;  // one material write at a time
};

}  // namespace kiln::editor
