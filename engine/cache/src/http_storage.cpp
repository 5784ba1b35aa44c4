#include "http_storage.h"

#include <algorithm>
#include <cstring>

#include "blob_format.h"
#include "connection_pool.h"
#include "curl_library.h"

namespace kiln::cache {
namespace {

// An easy handle keeps its connection open between requests to the same server.
struct HttpConnection {
  explicit HttpConnection(const CurlLibrary& library) : curl(library.easy_init()), cleanup(library.easy_cleanup) {}
  ~HttpConnection() {
    if (curl) cleanup(curl);
  }
  CURL* curl;
  void (*cleanup)(CURL*);
};

struct Body {
  const CurlLibrary* curl_library = nullptr;
  CURL* curl = nullptr;
  const EntryLimits* limits = nullptr;  // GET only: the other methods' replies are read and dropped
  std::vector<std::byte> bytes;
  std::uint64_t dropped = 0;   // bytes of a reply that is not an entry
  std::uint64_t expected = 0;  // the entry's size once known (announced, or from its header)
  bool head_checked = false;
  long status = 0;
  std::string unusable;  // why the body was refused
};

// Stops the transfer (curl ends with CURLE_WRITE_ERROR) with `why`.
std::size_t refuse(Body& body, std::string why) {
  body.unusable = std::move(why);
  return 0;
}

// A reply to a PUT or DELETE says only whether it worked: one far longer than any server's status
// page is a server to stop reading.
constexpr std::uint64_t kMaxReplyBytes = 64 << 10;

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  const std::size_t n = size * count;
  const EntryLimits* limits = body->limits;
  if (!limits) {
    body->dropped += n;
    return body->dropped > kMaxReplyBytes
               ? refuse(*body, "a reply of more than " + std::to_string(kMaxReplyBytes) + " bytes to a write")
               : n;
  }
  const std::uint64_t max = limits ? limits->max_bytes : blob_format::kMaxBlobBytes;
  if (!body->status) body->curl_library->easy_getinfo(body->curl, CURLINFO_RESPONSE_CODE, &body->status);
  if (body->status < 200 || body->status >= 300) return n;  // an error page, not an entry: dropped
  if (body->bytes.empty() && body->expected == 0) {         // the headers are in: what did the server announce?
    curl_off_t announced = -1;
    body->curl_library->easy_getinfo(body->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
    if (announced > 0 && std::uint64_t(announced) > max)
      return refuse(*body, "an entry of " + std::to_string(announced) + " bytes, more than the " + std::to_string(max) +
                               " an entry may have");
    if (announced > 0) {
      body->expected = std::uint64_t(announced);
      // Memory follows the bytes that arrive, not what the server announced: the entry's own
      // header is checked after its first bytes.
      body->bytes.reserve(std::size_t(std::min<std::uint64_t>(announced, 1 << 20)));
    }
  }
  const std::uint64_t bound = body->expected ? body->expected : max;
  if (body->bytes.size() + n > bound)
    return refuse(*body, body->expected ? "an entry longer than it said" : "an entry larger than an entry may be");
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  body->bytes.insert(body->bytes.end(), bytes, bytes + n);
  if (limits && limits->head_size && !body->head_checked && body->bytes.size() >= limits->head_bytes) {
    body->head_checked = true;
    auto whole = limits->head_size(std::span(body->bytes).first(limits->head_bytes));
    if (!whole) return refuse(*body, whole.error().message);
    if ((body->expected && *whole != body->expected) || *whole > max || *whole < body->bytes.size())
      return refuse(*body, "an entry whose header says " + std::to_string(*whole) + " bytes");
    body->expected = *whole;
  }
  return n;
}

class HttpStorage final : public RemoteStorage {
 public:
  HttpStorage(const CurlLibrary& libcurl, RemoteUrl url, std::chrono::milliseconds timeout)
      : libcurl_(libcurl), url_(std::move(url)), timeout_(timeout), address_(url_.address()), pool_(8) {
    base_ = "http://" + (url_.host.find(':') != std::string::npos ? "[" + url_.host + "]" : url_.host) + ":" +
            std::to_string(url_.port) + "/" + (url_.path.empty() ? "" : url_.path + "/");
  }

  RemoteReply get(const std::string& key, const EntryLimits& limits) override {
    return request("GET", key, {}, &limits);
  }
  RemoteReply put(const std::string& key, std::span<const std::byte> value) override {
    return request("PUT", key, value);
  }
  RemoteReply remove(const std::string& key) override { return request("DELETE", key, {}); }
  RemoteReply has(const std::string& key) override { return request("HEAD", key, {}); }
  const std::string& address() const override { return address_; }

 private:
  RemoteReply request(const char* method, const std::string& key, std::span<const std::byte> value,
                      const EntryLimits* limits = nullptr) {
    RemoteReply out;
    std::unique_ptr<HttpConnection> c = pool_.take();
    if (!c) c = std::make_unique<HttpConnection>(libcurl_);
    if (!c->curl) {
      out.outcome = RemoteReply::kUnreachable;
      out.problem = "cannot start an HTTP client";
      return out;
    }
    CURL* curl = c->curl;
    libcurl_.easy_reset(curl);
    const std::string url = base_ + key;
    Body body;
    body.curl_library = &libcurl_;
    body.curl = curl;
    body.limits = limits;
    libcurl_.easy_setopt(curl, CURLOPT_URL, url.c_str());
    libcurl_.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for timeouts: threads call this
    libcurl_.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout_.count()));
    libcurl_.easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_.count()));
    libcurl_.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http");
    libcurl_.easy_setopt(curl, CURLOPT_WRITEFUNCTION, &on_body);
    libcurl_.easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    if (!url_.password.empty()) {
      libcurl_.easy_setopt(curl, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
      const std::string credentials = url_.user + ":" + url_.password;
      libcurl_.easy_setopt(curl, CURLOPT_USERPWD, credentials.c_str());
    }
    if (std::strcmp(method, "PUT") == 0) {
      libcurl_.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
      libcurl_.easy_setopt(curl, CURLOPT_POSTFIELDS, value.data());
      libcurl_.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(value.size()));
    } else if (std::strcmp(method, "DELETE") == 0) {
      libcurl_.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "DELETE");
    } else if (std::strcmp(method, "HEAD") == 0) {
      libcurl_.easy_setopt(curl, CURLOPT_NOBODY, 1L);
    }
    const CURLcode code = libcurl_.easy_perform(curl);
    if (code != CURLE_OK) {
      if (!body.unusable.empty()) {  // the entry is bad, not the server
        out.outcome = RemoteReply::kUnusable;
        out.problem = body.unusable;
        return out;
      }
      out.outcome = RemoteReply::kUnreachable;
      out.problem = libcurl_.easy_strerror(code);
      return out;  // the handle's connection may be broken: it is not given back
    }
    long status = 0;
    libcurl_.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    pool_.give(std::move(c));
    if (status == 404 && std::strcmp(method, "PUT") != 0) {
      out.outcome = RemoteReply::kAbsent;
    } else if (status < 200 || status >= 300) {
      out.outcome = status >= 500 && status != 507 ? RemoteReply::kUnreachable : RemoteReply::kRefused;
      out.problem = std::string(method) + " answered HTTP " + std::to_string(status);
    } else if (std::strcmp(method, "GET") == 0) {
      out.value = std::move(body.bytes);
    }
    return out;
  }

  const CurlLibrary& libcurl_;
  RemoteUrl url_;
  std::chrono::milliseconds timeout_;
  std::string address_, base_;
  ConnectionPool<HttpConnection> pool_;
};

}  // namespace

Result<std::unique_ptr<RemoteStorage>> make_http_storage(RemoteUrl url, std::chrono::milliseconds timeout) {
  auto curl = curl_library();
  if (!curl) return curl.error();
  return std::unique_ptr<RemoteStorage>(std::make_unique<HttpStorage>(**curl, std::move(url), timeout));
}

}  // namespace kiln::cache
