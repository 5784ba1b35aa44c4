#include "editor/page_server.h"

#include <sys/random.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>

#include <httplib.h>

#include "editor/page_assets.h"
#include "kiln/core/atomic_output.h"
#include "kiln/core/project_paths.h"

namespace kiln::editor {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kLogEvents = 200;             // the events a page gets when it opens
constexpr std::size_t kMaxMaterialBytes = 1 << 20;  // a material file the page may rewrite
constexpr std::size_t kMaxStreams = 8;              // open pages at once
constexpr auto kKeepAlive = std::chrono::seconds(15);

std::string random_token() {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += std::size_t(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) token += hex[b >> 4], token += hex[b & 15];
  return token;
}

// Equal without an early exit: the time taken does not say how much of a guess was right.
bool same_token(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string cookie_value(const std::string& cookies, std::string_view name) {
  for (std::size_t at = 0; at < cookies.size();) {
    const std::size_t end = std::min(cookies.find(';', at), cookies.size());
    std::string_view pair(cookies.data() + at, end - at);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    if (pair.size() > name.size() && pair.substr(0, name.size()) == name && pair[name.size()] == '=')
      return std::string(pair.substr(name.size() + 1));
    at = end + 1;
  }
  return {};
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void refuse(httplib::Response& res, int status, const std::string& why) {
  res.status = status;
  res.set_content(why + "\n", "text/plain; charset=utf-8");
}

}  // namespace

// The server, in kiln-page.so.
class HttpPageServer final : public PageServer {
 public:
  static Result<std::unique_ptr<HttpPageServer>> start(PageServerOptions options);
  ~HttpPageServer() override;
  HttpPageServer(const HttpPageServer&) = delete;
  HttpPageServer& operator=(const HttpPageServer&) = delete;

  const std::string& url() const override { return url_; }
  void publish(const nlohmann::json& event, bool logged) override;
  void set_state(nlohmann::json state) override;
  void set_pictures(fs::path dir) override;

 private:
  struct Stream {
    std::deque<std::string> pending;  // messages not yet sent
  };
  explicit HttpPageServer(PageServerOptions options);
  void route();
  // Why a request is refused (401 or 403, and the reason), or 0.
  std::pair<int, std::string> refusal(const std::string& host, const std::string& origin, const std::string& token,
                                      bool writes) const;
  bool allowed_host(std::string_view host) const;
  Result<std::string> write_material(const nlohmann::json& edit);  // the file written, project-relative

  PageServerOptions options_;  // pictures: guarded by mu_
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

HttpPageServer::HttpPageServer(PageServerOptions options)
    : options_(std::move(options)), token_(random_token()), server_(std::make_unique<httplib::Server>()) {}

Result<std::unique_ptr<HttpPageServer>> HttpPageServer::start(PageServerOptions options) {
  std::unique_ptr<HttpPageServer> self(new HttpPageServer(std::move(options)));
  self->route();
  // Each open page holds a thread for its stream; requests get the rest.
  self->server_->new_task_queue = [] { return new httplib::ThreadPool(kMaxStreams + 4); };
  const std::string& host = self->options_.host;
  if (self->options_.port == 0)
    self->port_ = self->server_->bind_to_any_port(host);
  else if (self->server_->bind_to_port(host, self->options_.port))
    self->port_ = self->options_.port;
  else
    self->port_ = -1;
  if (self->port_ <= 0)
    return make_error("--serve " + host + ":" + std::to_string(self->options_.port) +
                      ": cannot listen there (in use, or not an address of this machine)");
  const std::string port = std::to_string(self->port_);
  const bool v6 = host.find(':') != std::string::npos;
  const std::string named = (v6 ? "[" + host + "]" : host) + ":" + port;
  self->hosts_ = {named, "127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port};
  self->url_ = "http://" + named + "/?token=" + self->token_;
  self->thread_ = std::thread([s = self.get()] { s->server_->listen_after_bind(); });
  return self;
}

HttpPageServer::~HttpPageServer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

void HttpPageServer::publish(const nlohmann::json& event, bool logged) {
  nlohmann::json sent = event;
  sent["sent_at"] = now_ms();  // the page measures its own delay against it
  std::string message = sent.dump();
  std::lock_guard lock(mu_);
  if (logged) log_.push_back(message);
  if (log_.size() > kLogEvents) log_.pop_front();
  for (Stream* stream : streams_) stream->pending.push_back(message);
  changed_.notify_all();
}

void HttpPageServer::set_state(nlohmann::json state) {
  state["event"] = "state";
  state["sent_at"] = now_ms();
  std::string message = state.dump();
  std::lock_guard lock(mu_);
  state_ = message;
  for (Stream* stream : streams_) stream->pending.push_back(message);
  changed_.notify_all();
}

void HttpPageServer::set_pictures(fs::path dir) {
  std::lock_guard lock(mu_);
  options_.pictures = std::move(dir);
}

bool HttpPageServer::allowed_host(std::string_view host) const { return hosts_.count(std::string(host)) > 0; }

std::pair<int, std::string> HttpPageServer::refusal(const std::string& host, const std::string& origin,
                                                    const std::string& token, bool writes) const {
  // A DNS name rebound to this address still says its own name in Host.
  if (!allowed_host(host)) return {403, "refused: the Host header does not name this server"};
  // A page of another site may send requests here, but its Origin says so.
  if (!origin.empty() && (origin.rfind("http://", 0) != 0 || !allowed_host(origin.substr(7))))
    return {403, "refused: a request from another origin"};
  if (token.empty()) return {401, "the page's address with its token is needed (printed by kiln editor --serve)"};
  if (!same_token(token, token_)) return {403, "refused: not this session's token"};
  if (writes && origin.empty()) return {403, "refused: a write must come from the page (no Origin header)"};
  if (writes && options_.read_only) return {403, "refused: the editor serves this page read-only"};
  return {0, {}};
}

void HttpPageServer::route() {
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    std::string token = req.get_param_value("token");
    const bool from_url = !token.empty();
    if (!from_url) token = cookie_value(req.get_header_value("Cookie"), "kiln_token");
    const auto [status, why] =
        refusal(req.get_header_value("Host"), req.get_header_value("Origin"), token, req.method != "GET");
    if (status != 0) {
      refuse(res, status, why);
      return httplib::Server::HandlerResponse::Handled;
    }
    if (from_url && req.method == "GET") {
      // The token moves to a cookie the page's own requests carry, and out of the address bar.
      res.set_header("Set-Cookie", "kiln_token=" + token_ + "; Path=/; HttpOnly; SameSite=Strict");
      res.set_redirect(req.path, 303);
      return httplib::Server::HandlerResponse::Handled;
    }
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Content-Type-Options", "nosniff");
    return httplib::Server::HandlerResponse::Unhandled;
  });

  for (const PageAsset& asset : page_assets())
    server_->Get(std::string(asset.path), [asset](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(asset.bytes), std::string(asset.type));
      if (asset.path == "/")
        res.set_header("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'");
    });

  server_->Get("/state", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard lock(mu_);
    std::string body = "{\"state\":" + state_ + ",\"log\":[";
    for (std::size_t i = 0; i < log_.size(); ++i) body += (i ? "," : "") + log_[i];
    body += "],\"read_only\":" + std::string(options_.read_only ? "true" : "false") + "}";
    res.set_content(body, "application/json");
  });

  server_->Get("/events", [this](const httplib::Request&, httplib::Response& res) {
    auto stream = std::make_shared<Stream>();
    {
      std::lock_guard lock(mu_);
      if (streams_.size() >= kMaxStreams) return refuse(res, 503, "too many open pages");
      streams_.insert(stream.get());
      if (state_ != "{}") stream->pending.push_back(state_);  // what changed between /state and this stream
    }
    res.set_header("Cache-Control", "no-store");
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, stream](std::size_t, httplib::DataSink& sink) {
          std::unique_lock lock(mu_);
          changed_.wait_for(lock, kKeepAlive, [&] { return stopping_ || !stream->pending.empty(); });
          if (stopping_) return false;
          std::string out;
          for (const std::string& message : stream->pending) out += "data: " + message + "\n\n";
          stream->pending.clear();
          lock.unlock();
          if (out.empty()) out = ": keep-alive\n\n";  // a closed page shows as a failed write
          return sink.write(out.data(), out.size());
        },
        [this, stream](bool) {
          std::lock_guard lock(mu_);
          streams_.erase(stream.get());
        });
  });

  server_->Get(R"(/pictures/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
    const fs::path rel = fs::path(req.matches[1].str()).lexically_normal();
    if (rel.is_absolute() || rel.empty() || *rel.begin() == ".." || rel.extension() != ".png")
      return refuse(res, 404, "no such picture");
    fs::path dir;
    {
      std::lock_guard lock(mu_);
      dir = options_.pictures;
    }
    std::ifstream in(dir / rel, std::ios::binary);
    if (!in) return refuse(res, 404, "no such picture");
    res.set_content(std::string(std::istreambuf_iterator<char>(in), {}), "image/png");
  });

  server_->Post("/material", [this](const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Content-Type").rfind("application/json", 0) != 0)
      return refuse(res, 415, "a material edit is JSON");
    auto edit = nlohmann::json::parse(req.body, nullptr, false);
    if (edit.is_discarded() || !edit.is_object()) return refuse(res, 400, "a material edit is a JSON object");
    auto written = write_material(edit);
    if (!written) return refuse(res, 400, written.error().message);
    res.set_content(nlohmann::json({{"file", *written}}).dump(), "application/json");
  });
}

Result<std::string> HttpPageServer::write_material(const nlohmann::json& edit) {
  if (!edit.contains("file") || !edit["file"].is_string() || !edit.contains("param") || !edit["param"].is_string() ||
      !edit.contains("value"))
    return make_error("a material edit names its file, its param and the value");
  // Only a material's JSON inside the project, named as the project names it.
  const std::string file = edit["file"].get<std::string>();
  const fs::path rel = fs::path(file).lexically_normal();
  if (rel.is_absolute() || rel.generic_string() != file || file.rfind("materials/", 0) != 0 ||
      rel.extension() != ".json" || file.find("/.") != std::string::npos)
    return make_error(file + ": the page may write only material files (materials/*.json) of the project");
  const fs::path path = options_.root / rel;
  if (!resolves_inside(path, canonical_roots({options_.root}))) return make_error(file + ": leads outside the project");
  std::lock_guard lock(write_mu_);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return make_error(file + ": no such material");
  if (fs::file_size(path, ec) > kMaxMaterialBytes) return make_error(file + ": too large to edit from the page");
  std::ifstream in(path, std::ios::binary);
  // Keys keep the order they were written in: the file stays the artist's.
  auto material = nlohmann::ordered_json::parse(std::istreambuf_iterator<char>(in), {}, nullptr, false);
  if (material.is_discarded() || !material.is_object() || !material.contains("params") ||
      !material["params"].is_object())
    return make_error(file + ": not a material with parameters (fix it in a text editor)");
  const std::string param = edit["param"].get<std::string>();
  auto& params = material["params"];
  if (!params.contains(param)) return make_error(file + ": has no parameter '" + param + "'");
  // The same shape as before, numbers only: the page edits values, not a material's layout.
  const auto& old_value = params[param];
  const auto& value = edit["value"];
  const auto numbers = [](const nlohmann::json& v) {
    if (v.is_number()) return true;
    if (!v.is_array()) return false;
    for (const auto& x : v)
      if (!x.is_number()) return false;
    return true;
  };
  if (!numbers(value) || value.is_array() != old_value.is_array() ||
      (value.is_array() && value.size() != old_value.size()))
    return make_error(file + ": /params/" + param + " keeps its shape (" +
                      (old_value.is_array() ? std::to_string(old_value.size()) + " numbers" : "a number") + ")");
  params[param] = nlohmann::ordered_json::parse(value.dump());
  const std::string text = material.dump(2) + "\n";
  KILN_TRY(write_file_atomically(path, std::as_bytes(std::span(text.data(), text.size()))));
  return file;
}

}  // namespace kiln::editor

extern "C" __attribute__((visibility("default"))) kiln::editor::PageServer* kiln_page_server_v1(
    const char* build_id, const kiln::editor::PageServerOptions* options, std::string* error) {
  // Another tree's editor may lay out what it hands over differently: refused.
  if (!build_id || std::strcmp(build_id, KILN_TOOLS_BUILD_ID) != 0) {
    *error = "kiln-page.so: built from another Kiln than this program";
    return nullptr;
  }
  auto server = kiln::editor::HttpPageServer::start(*options);
  if (!server) {
    *error = server.error().message;
    return nullptr;
  }
  return server->release();
}
