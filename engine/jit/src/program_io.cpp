#include "kiln/jit/program_io.h"

#include <cstring>

namespace kiln::jit {
namespace {

constexpr std::uint32_t kMagic = 0x4B424331;  // "KBC1"
constexpr std::uint32_t kFormat = 1;

class Writer {
 public:
  void u32(std::uint32_t v) { raw(&v, 4); }
  void text(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  template <class T>
  void list(const std::vector<T>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const T& x : v) u32(static_cast<std::uint32_t>(x));
  }
  std::vector<std::byte> out;

 private:
  void raw(const void* p, std::size_t n) {
    out.insert(out.end(), static_cast<const std::byte*>(p), static_cast<const std::byte*>(p) + n);
  }
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> b) : bytes_(b) {}
  bool u32(std::uint32_t& v) {
    if (at_ + 4 > bytes_.size()) return false;
    std::memcpy(&v, bytes_.data() + at_, 4);
    at_ += 4;
    return true;
  }
  bool text(std::string& s) {
    std::uint32_t n = 0;
    if (!u32(n) || at_ + n > bytes_.size()) return false;
    s.assign(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n;
    return true;
  }
  template <class T>
  bool list(std::vector<T>& v) {
    std::uint32_t n = 0;
    if (!u32(n) || n > (bytes_.size() - at_) / 4) return false;
    v.resize(n);
    for (auto& x : v) {
      std::uint32_t w = 0;
      u32(w);
      x = static_cast<T>(w);
    }
    return true;
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<std::byte> serialize_program(const Program& program) {
  Writer w;
  w.u32(kMagic);
  w.u32(kFormat);
  w.text(program.file);
  w.list(program.words);
  w.u32(static_cast<std::uint32_t>(program.entries.size()));
  for (const auto& e : program.entries) w.list(e);
  w.u32(static_cast<std::uint32_t>(program.functions.size()));
  for (const FunctionCode& f : program.functions) {
    w.text(f.name);
    w.u32(static_cast<std::uint32_t>(f.first_page));
    w.u32(static_cast<std::uint32_t>(f.words));
    w.u32(static_cast<std::uint32_t>(f.params));
    w.list(f.param_types);
    w.u32(static_cast<std::uint32_t>(f.frame_slots));
    w.u32(static_cast<std::uint32_t>(f.result));
    w.list(f.lines);
  }
  w.u32(static_cast<std::uint32_t>(program.module_slots));
  w.u32(static_cast<std::uint32_t>(program.host.size()));
  for (const HostSignature& h : program.host) {
    w.text(h.name);
    w.list(h.params);
    w.u32(static_cast<std::uint32_t>(h.result));
  }
  return std::move(w.out);
}

Result<Program> deserialize_program(std::span<const std::byte> bytes, const std::string& name) {
  Reader r(bytes);
  Program p;
  std::uint32_t magic = 0, format = 0, n = 0;
  const auto broken = [&](const std::string& what) { return make_error(name + ": cooked bytecode: " + what); };
  if (!r.u32(magic) || magic != kMagic) return broken("not Kiln bytecode");
  if (!r.u32(format) || format != kFormat)
    return broken("format " + std::to_string(format) + " (this build reads " + std::to_string(kFormat) + ")");
  if (!r.text(p.file) || !r.list(p.words) || !r.u32(n)) return broken("truncated");
  if (p.words.size() % kPageWords != 0 || n != p.words.size() / kPageWords) return broken("page table does not match the code");
  p.entries.resize(n);
  for (auto& e : p.entries)
    if (!r.list(e)) return broken("truncated entries");
  if (!r.u32(n) || n == 0 || n > p.words.size() + 1) return broken("bad function table");
  p.functions.resize(n);
  for (FunctionCode& f : p.functions) {
    std::uint32_t first = 0, words = 0, params = 0, slots = 0, result = 0;
    if (!r.text(f.name) || !r.u32(first) || !r.u32(words) || !r.u32(params) || !r.list(f.param_types) ||
        !r.u32(slots) || !r.u32(result) || !r.list(f.lines))
      return broken("truncated function");
    f.first_page = first, f.words = words, f.params = int(params), f.frame_slots = int(slots), f.result = Type(result);
    if (std::size_t(first) * kPageWords + words > p.words.size() || f.lines.size() != words || slots > 100000)
      return broken("function '" + f.name + "' lies outside the code");
  }
  std::uint32_t module_slots = 0;
  if (!r.u32(module_slots) || !r.u32(n)) return broken("truncated");
  p.module_slots = int(module_slots);
  p.host.resize(n);
  for (HostSignature& h : p.host) {
    std::uint32_t result = 0;
    if (!r.text(h.name) || !r.list(h.params) || !r.u32(result)) return broken("truncated host table");
    h.result = Type(result);
  }
  if (!r.done()) return broken("trailing bytes");
  return p;
}

}  // namespace kiln::jit
