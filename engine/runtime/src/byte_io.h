#pragma once
// Little-endian records for pack entries: a writer that appends, and a reader that never reads past
// its span and remembers the first problem (so decoders check once, at the end, and name the place).

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::runtime::detail {

class ByteWriter {
 public:
  void u32(std::uint32_t v) { raw(&v, 4); }
  void f64(double v) { raw(&v, 8); }
  void text(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  void bytes(std::span<const std::byte> b) {
    u32(static_cast<std::uint32_t>(b.size()));
    raw(b.data(), b.size());
  }
  void raw(const void* p, std::size_t n) {
    out_.insert(out_.end(), static_cast<const std::byte*>(p), static_cast<const std::byte*>(p) + n);
  }
  void reserve(std::size_t n) { out_.reserve(n); }
  std::vector<std::byte> take() { return std::move(out_); }

 private:
  std::vector<std::byte> out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}

  std::uint32_t u32(const char* what) {
    std::uint32_t v = 0;
    raw(&v, 4, what);
    return v;
  }
  double f64(const char* what) {
    double v = 0;
    raw(&v, 8, what);
    return v;
  }
  std::string text(const char* what) {
    const std::uint32_t n = u32(what);
    if (!take(n, what)) return {};
    return {reinterpret_cast<const char*>(in_.data() + at_ - n), n};
  }
  std::span<const std::byte> bytes(const char* what) {
    const std::uint32_t n = u32(what);
    if (!take(n, what)) return {};
    return in_.subspan(at_ - n, n);
  }
  // A count of items each at least `min_item_bytes` long: refused when the rest cannot hold them,
  // so a hand-made count never makes a decoder reserve or loop without end.
  std::uint32_t count(const char* what, std::size_t min_item_bytes) {
    const std::uint32_t n = u32(what);
    if (ok() && std::uint64_t(n) * min_item_bytes > in_.size() - at_) fail(what, "count larger than the entry");
    return ok() ? n : 0;
  }
  void raw(void* out, std::size_t n, const char* what) {
    if (take(n, what)) std::memcpy(out, in_.data() + at_ - n, n);
  }
  void fail(const char* what, std::string problem) {
    if (problem_.empty())
      problem_ = std::string(what) + ": " + std::move(problem) + " (at byte " + std::to_string(at_) + ")";
  }
  bool ok() const { return problem_.empty(); }
  bool at_end() const { return at_ == in_.size(); }
  const std::string& problem() const { return problem_; }

 private:
  bool take(std::size_t n, const char* what) {
    if (!ok()) return false;
    if (n > in_.size() - at_) {
      fail(what, "truncated");
      return false;
    }
    at_ += n;
    return true;
  }
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
  std::string problem_;
};

// Every record starts with its magic and version: checks both, naming `kind` ("material record").
inline std::optional<std::string> check_record_header(ByteReader& r, std::uint32_t magic, std::uint32_t version,
                                                      const std::string& kind) {
  if (r.u32("magic") != magic || !r.ok()) return "not a " + kind;
  if (const auto found = r.u32("version"); found != version)
    return kind + " version " + std::to_string(found) + " (this build reads " + std::to_string(version) + ")";
  return std::nullopt;
}

inline void write_record_header(ByteWriter& w, std::uint32_t magic, std::uint32_t version) {
  w.u32(magic);
  w.u32(version);
}

}  // namespace kiln::runtime::detail
