#include "kiln/jit/program_io.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace kiln::jit {
namespace {

constexpr std::uint32_t kMagic = 0x4B424331;  // "KBC1"
constexpr std::uint32_t kFormat = 3;          // 2: constant-operand instructions; 3: strings

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
  // Whether `count` records of at least `min_bytes` each can still follow: a count read from the
  // input is checked against it before anything is allocated for it.
  bool room_for(std::uint64_t count, std::uint64_t min_bytes) const {
    return count <= (bytes_.size() - at_) / min_bytes;
  }

 private:
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
};

// Every instruction of every function stays inside what the interpreter indexes: its frame's
// registers, the module slots, the function and host tables, the function's own code (jump
// targets and inline data). Types are not re-derived: a cooked pack is as trusted as the binary,
// its checksums guard against damage; this stops a damaged or hand-made one from indexing out of
// bounds with a clear message instead of a crash.
Status verify_program(const Program& p, const std::string& name) {
  for (std::size_t fi = 0; fi < p.functions.size(); ++fi) {
    const FunctionCode& f = p.functions[fi];
    const std::uint32_t* code = p.words.data() + f.first_page * kPageWords;
    const auto bad = [&](std::size_t pc, const std::string& what) {
      return make_error(name + ": cooked bytecode: function '" + f.name + "' word " + std::to_string(pc) + ": " + what);
    };
    const auto reg = [&](std::size_t r) { return r < std::size_t(f.frame_slots); };
    const std::span<const std::uint32_t> body(code, f.words);
    for (std::size_t pc = 0; pc < f.words;) {
      const std::uint32_t w = code[pc];
      if (!is_op(w)) return bad(pc, "unknown instruction");
      const Op op = op_of(w);
      const OpInfo& info = op_info(op);
      const std::size_t a = a_of(w), b = b_of(w), c = c_of(w);
      if (pc + 1 >= f.words) {
        if (info.format == OpFormat::kString || info.format == OpFormat::kAString)
          return bad(pc, "string length outside the code");
        if (info.format == OpFormat::kAStringArgs) return bad(pc, "argument kinds outside the code");
        if (info.format == OpFormat::kARecord) return bad(pc, "record mask outside the code");
        if (info.format == OpFormat::kAClosure) return bad(pc, "upvalue count outside the code");
        if (has_inline_offset(op)) return bad(pc, "branch offset outside the code");
      }
      const std::size_t length = instruction_words(body, pc);
      if (pc + length > f.words) return bad(pc, "inline data outside the code");
      if (info.flow == OpFlow::kAlways || info.flow == OpFlow::kMaybe) {
        const auto target = jump_target(body, pc);
        if (!target || *target < 0 || std::size_t(*target) >= f.words) return bad(pc, "jump outside the function");
      }
      // The highest register the instruction reads or writes, by its format.
      std::optional<std::size_t> highest;
      switch (info.format) {
        case OpFormat::kNone:
        case OpFormat::kJump:
        case OpFormat::kFunction:
        case OpFormat::kString: break;
        case OpFormat::kA:
        case OpFormat::kALiteral:
        case OpFormat::kAModule:
        case OpFormat::kAFunction:
        case OpFormat::kAJump:
        case OpFormat::kANumber:
        case OpFormat::kAString:
        case OpFormat::kARecord:
        case OpFormat::kAClosure:
        case OpFormat::kANumberBranch: highest = a; break;
        case OpFormat::kABField: highest = std::max(a, b); break;
        case OpFormat::kAFieldC: highest = std::max(a, c); break;
        case OpFormat::kAB:
        case OpFormat::kABNumber:
        case OpFormat::kABBranch: highest = std::max(a, b); break;
        case OpFormat::kABC: highest = std::max({a, b, c}); break;
        case OpFormat::kLoopJump: highest = a + 3; break;
        case OpFormat::kAMathArgs:
        case OpFormat::kAStringArgs:
        case OpFormat::kAHostArgs: highest = c ? a + c - 1 : a; break;
        case OpFormat::kABArgs: highest = std::max({a, b, c ? a + c - 1 : 0}); break;
        case OpFormat::kATailCall: highest = b ? a + b - 1 : a; break;
      }
      if (highest && !reg(*highest))
        return bad(pc,
                   "register " + std::to_string(*highest) + " outside the frame of " + std::to_string(f.frame_slots));
      // The tables an instruction indexes.
      const auto function_index = info.format == OpFormat::kATailCall ? std::optional(code[pc + 1])
                                  : info.format == OpFormat::kAFunction || info.format == OpFormat::kFunction ||
                                          info.format == OpFormat::kAClosure
                                      ? std::optional(ud_of(w))
                                      : std::nullopt;
      if (function_index && *function_index >= p.functions.size()) return bad(pc, "function index out of range");
      if (info.format == OpFormat::kAModule && ud_of(w) >= unsigned(p.module_slots))
        return bad(pc, "module slot out of range");
      if (info.format == OpFormat::kAHostArgs && b >= p.host.size()) return bad(pc, "host function index out of range");
      if (info.format == OpFormat::kAMathArgs && b > static_cast<unsigned>(MathFn::kMax))
        return bad(pc, "unknown math function");
      if (info.format == OpFormat::kARecord && b > kMaxRecordFields) return bad(pc, "record of too many fields");
      if (info.format == OpFormat::kAClosure) {
        if (code[pc + 1] > 255) return bad(pc, "closure of too many upvalues");
        for (std::size_t k = 0; k < code[pc + 1]; ++k) {
          const std::uint32_t source = code[pc + 2 + k];
          if (!(source & kFromUpvalue) && !reg(source)) return bad(pc, "captured register outside the frame");
        }
      }
      if ((info.format == OpFormat::kABField && c >= kMaxRecordFields) ||
          (info.format == OpFormat::kAFieldC && b >= kMaxRecordFields))
        return bad(pc, "field index out of range");
      if (info.format == OpFormat::kAStringArgs && (b >= static_cast<unsigned>(StringFn::kCount) || c > kMaxStringArgs))
        return bad(pc, "unknown string function or too many arguments");
      if ((info.format == OpFormat::kAMathArgs || info.format == OpFormat::kAHostArgs ||
           info.format == OpFormat::kAStringArgs) &&
          c > 255 - a)
        return bad(pc, "arguments outside the frame");
      pc += length;
    }
  }
  return {};
}

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
  if (p.words.size() % kPageWords != 0 || n != p.words.size() / kPageWords)
    return broken("page table does not match the code");
  p.entries.resize(n);
  for (auto& e : p.entries)
    if (!r.list(e)) return broken("truncated entries");
  if (!r.u32(n) || n == 0 || n > p.words.size() + 1 || !r.room_for(n, 28)) return broken("bad function table");
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
  if (!r.room_for(n, 12))
    return broken("host table larger than the file");  // name, params, result: 4 bytes each at least
  p.module_slots = int(module_slots);
  p.host.resize(n);
  for (HostSignature& h : p.host) {
    std::uint32_t result = 0;
    if (!r.text(h.name) || !r.list(h.params) || !r.u32(result)) return broken("truncated host table");
    h.result = Type(result);
  }
  if (!r.done()) return broken("trailing bytes");
  KILN_TRY(verify_program(p, name));
  return p;
}

}  // namespace kiln::jit
