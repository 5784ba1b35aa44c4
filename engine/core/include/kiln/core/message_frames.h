#pragma once
// Messages between a tool and its worker processes over a connected socket: each is a 64-bit
// length and a body of fields (little-endian integers, length-prefixed strings and arrays). Both
// ends are the same build, so there is no versioning; readers still check every length, because a
// dying worker can leave a message cut short.
//
// Thread-safety: FieldWriter and FieldReader are values of one thread; the functions keep no state.

#include <chrono>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

class FieldWriter {
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
  // Trivially copyable elements, as a count and their bytes.
  template <typename T>
  void array(std::span<const T> items) {
    u64(items.size());
    raw(items.data(), items.size_bytes());
  }
  std::string take() { return std::move(out_); }

 private:
  void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class FieldReader {
 public:
  explicit FieldReader(std::string_view in) : in_(in) {}
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
  template <typename T>
  bool array(std::vector<T>& out) {
    std::uint64_t n = 0;
    if (!u64(n) || n > (in_.size() - pos_) / sizeof(T)) return false;
    out.resize(n);
    return raw(out.data(), n * sizeof(T));
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  bool raw(void* p, std::size_t n) {
    if (n > in_.size() - pos_) return false;
    if (n) std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

// Whole messages. `deadline` bounds the wait for one; a closed peer, a timeout or a length over
// kMaxMessageBytes is a failure.
bool send_message(int fd, std::string_view body);
enum class ReadResult { kOk, kClosed, kTimeout };
ReadResult read_message(int fd, std::string& body, std::chrono::steady_clock::time_point deadline);

// No limit on a message beyond this: a shader and its includes, or a page's code.
inline constexpr std::uint64_t kMaxMessageBytes = std::uint64_t{1} << 30;

}  // namespace kiln::core
