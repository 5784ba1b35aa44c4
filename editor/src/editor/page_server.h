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
// Thread-safety: every member may be called from any thread (the editor's event loop calls them);
// requests are answered on the server's own threads.

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "kiln/core/result.h"

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

// The running server. Made by start_page_server(), which loads it from kiln-page.so beside the
// program: only an editor that serves a page loads the HTTP library and what it needs (OpenSSL,
// brotli, zlib: about 8 ms of every tool's start otherwise).
class PageServer {
 public:
  virtual ~PageServer() = default;  // open pages' streams end; the server stops
  // The page's address with the session's token: what the user opens.
  virtual const std::string& url() const = 0;
  // An event for every open page, and for the log a page gets when it opens (unless `logged` is
  // false: figures sent every few seconds).
  virtual void publish(const nlohmann::json& event, bool logged = true) = 0;
  // The project as it is now (materials, shaders, scripts, textures, caches): what a page shows.
  virtual void set_state(nlohmann::json state) = 0;
  // Where previews and thumbnails are (a new editor session has a directory of its own).
  virtual void set_pictures(std::filesystem::path dir) = 0;
};

// Loads kiln-page.so and starts the server: listening when it returns.
Result<std::unique_ptr<PageServer>> start_page_server(const PageServerOptions& options);

// kiln-page.so's entry point: the server, or null with `error` set; null too for a caller built
// from another tree (`build_id`).
using PageServerEntry = PageServer* (*)(const char* build_id, const PageServerOptions* options, std::string* error);
inline constexpr const char* kPageServerEntry = "kiln_page_server_v1";

}  // namespace kiln::editor
