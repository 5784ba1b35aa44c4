#include "compile_wire.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kiln::shadercache::wire {
namespace fs = std::filesystem;
namespace {

class Writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(char(v)); }
  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  void strings(const auto& list) {
    u32(std::uint32_t(list.size()));
    for (const auto& s : list) str(std::string_view(s));
  }
  std::string take() { return std::move(out_); }

 private:
  void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool u8(std::uint8_t& v) { return raw(&v, 1); }
  bool u32(std::uint32_t& v) { return raw(&v, sizeof v); }
  bool u64(std::uint64_t& v) { return raw(&v, sizeof v); }
  bool str(std::string& s) {
    std::uint64_t n = 0;
    if (!u64(n) || n > in_.size() - pos_) return false;
    s.assign(in_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  template <typename T>
  bool strings(std::vector<T>& out) {
    std::uint32_t n = 0;
    if (!u32(n) || n > in_.size() - pos_) return false;  // each entry takes at least 8 bytes
    for (std::uint32_t i = 0; i < n; ++i) {
      std::string s;
      if (!str(s)) return false;
      out.emplace_back(std::move(s));
    }
    return true;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  bool raw(void* p, std::size_t n) {
    if (n > in_.size() - pos_) return false;
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string encode_request(const GlslInput& input) {
  Writer w;
  w.str(input.file.string());
  w.str(input.source);
  w.u8(std::uint8_t(input.stage));
  w.strings(input.defines);
  std::vector<std::string> dirs, roots;
  for (const auto& d : input.include_dirs) dirs.push_back(d.string());
  for (const auto& r : input.include_roots) roots.push_back(r.string());
  w.strings(dirs);
  w.strings(roots);
  w.u8(std::uint8_t(input.target));
  w.u8(input.snapshot ? 1 : 0);
  if (input.snapshot) {
    w.u32(std::uint32_t(input.snapshot->size()));
    for (const auto& [path, text] : *input.snapshot) {
      w.str(path.string());
      w.str(text);
    }
  }
  return w.take();
}

std::optional<Request> decode_request(std::string_view body) {
  Reader r(body);
  Request req;
  GlslInput& in = req.input;
  std::string file;
  std::uint8_t stage = 0, target = 0, has_snapshot = 0;
  std::vector<std::string> dirs, roots;
  if (!r.str(file) || !r.str(in.source) || !r.u8(stage) || !r.strings(in.defines) || !r.strings(dirs) ||
      !r.strings(roots) || !r.u8(target) || !r.u8(has_snapshot))
    return std::nullopt;
  if (stage > std::uint8_t(Stage::kCompute) || target >= runtime::kTargetEnvCount || has_snapshot > 1)
    return std::nullopt;
  in.file = file;
  in.stage = Stage(stage);
  in.target = TargetEnv(target);
  for (auto& d : dirs) in.include_dirs.emplace_back(std::move(d));
  for (auto& root : roots) in.include_roots.emplace_back(std::move(root));
  req.has_snapshot = has_snapshot == 1;
  if (req.has_snapshot) {
    std::uint32_t n = 0;
    if (!r.u32(n)) return std::nullopt;
    for (std::uint32_t i = 0; i < n; ++i) {
      std::string path, text;
      if (!r.str(path) || !r.str(text)) return std::nullopt;
      req.snapshot.emplace(fs::path(path), std::move(text));
    }
  }
  if (!r.done()) return std::nullopt;
  return req;
}

std::string encode_response(const Result<GlslOutput>& result) {
  Writer w;
  w.u8(result ? 1 : 0);
  if (!result) {
    w.str(result.error().message);
    return w.take();
  }
  w.u64(result->spirv.size());
  for (std::uint32_t word : result->spirv) w.u32(word);
  std::vector<std::string> includes;
  for (const auto& p : result->includes) includes.push_back(p.string());
  w.strings(includes);
  w.str(result->warnings);
  w.u8(result->read_outside_snapshot ? 1 : 0);
  return w.take();
}

std::optional<Result<GlslOutput>> decode_response(std::string_view body) {
  Reader r(body);
  std::uint8_t ok = 0;
  if (!r.u8(ok) || ok > 1) return std::nullopt;
  if (!ok) {
    std::string message;
    if (!r.str(message) || !r.done()) return std::nullopt;
    return Result<GlslOutput>(make_error(std::move(message)));
  }
  GlslOutput out;
  std::uint64_t words = 0;
  if (!r.u64(words) || words > body.size() / 4) return std::nullopt;
  out.spirv.resize(words);
  for (auto& word : out.spirv)
    if (!r.u32(word)) return std::nullopt;
  std::vector<std::string> includes;
  std::uint8_t outside = 0;
  if (!r.strings(includes) || !r.str(out.warnings) || !r.u8(outside) || outside > 1 || !r.done()) return std::nullopt;
  for (auto& p : includes) out.includes.emplace_back(std::move(p));
  out.read_outside_snapshot = outside == 1;
  return Result<GlslOutput>(std::move(out));
}

bool send_message(int fd, std::string_view body) {
  const std::uint64_t n = body.size();
  std::string frame(reinterpret_cast<const char*>(&n), sizeof n);
  frame.append(body);
  for (std::size_t sent = 0; sent < frame.size();) {
    const ssize_t w = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    sent += std::size_t(w);
  }
  return true;
}

namespace {

ReadResult read_exact(int fd, char* p, std::size_t n, std::chrono::steady_clock::time_point deadline) {
  while (n > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return ReadResult::kTimeout;
    pollfd pfd{fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, int(std::min<std::int64_t>(left.count(), 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return ReadResult::kClosed;
    if (ready == 0) return ReadResult::kTimeout;
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) return ReadResult::kClosed;
    p += r;
    n -= std::size_t(r);
  }
  return ReadResult::kOk;
}

}  // namespace

ReadResult read_message(int fd, std::string& body, std::chrono::steady_clock::time_point deadline) {
  std::uint64_t n = 0;
  if (auto r = read_exact(fd, reinterpret_cast<char*>(&n), sizeof n, deadline); r != ReadResult::kOk) return r;
  if (n > kMaxMessageBytes) return ReadResult::kClosed;
  body.resize(n);
  return read_exact(fd, body.data(), n, deadline);
}

}  // namespace kiln::shadercache::wire
