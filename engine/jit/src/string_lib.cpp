#include "string_lib.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "kiln/jit/string_format.h"
#include "kiln/jit/vm.h"

namespace kiln::jit {

Result<std::optional<FormatConversion>> next_conversion(std::string_view format, std::size_t& at, std::string& text) {
  while (at < format.size()) {
    // The literal text up to the next '%' in one piece.
    const std::size_t percent = std::min(format.find('%', at), format.size());
    text.append(format.substr(at, percent - at));
    at = percent;
    if (at == format.size()) break;
    ++at;
    if (at < format.size() && format[at] == '%') {
      text += '%';
      ++at;
      continue;
    }
    const std::size_t start = at;
    static constexpr std::string_view kFlags = "-+ #0";
    while (at < format.size() && kFlags.find(format[at]) != std::string_view::npos) ++at;
    if (at - start > kFlags.size()) return make_error("invalid format (repeated flags)");
    auto digit = [&] { return at < format.size() && std::isdigit(static_cast<unsigned char>(format[at])); };
    for (int k = 0; k < 2 && digit(); ++k) ++at;
    if (at < format.size() && format[at] == '.') {
      ++at;
      for (int k = 0; k < 2 && digit(); ++k) ++at;
    }
    if (digit()) return make_error("invalid format (width or precision too long)");
    if (at >= format.size()) return make_error("invalid option '%' at the end of the format");
    const char letter = format[at++];
    if (std::string_view("diucoxXeEfgGqs").find(letter) == std::string_view::npos)
      return make_error(std::string("invalid option '%") + letter + "' to 'format'");
    return std::optional(FormatConversion{"%" + std::string(format.substr(start, at - start)), letter});
  }
  return std::optional<FormatConversion>();
}

std::size_t number_text(double v, char* out) {
  // A whole number below 10^14 prints as its digits under %.14g: written directly, it skips
  // snprintf's parsing and rounding (scripts join and print counters and indices all the time).
  // -0 keeps its sign through snprintf.
  if (v == std::floor(v) && std::fabs(v) < kPlainWhole && !(v == 0 && std::signbit(v))) {
    long long n = static_cast<long long>(v);
    char digits[24];
    char* end = digits + sizeof digits;
    char* p = end;
    const bool negative = n < 0;
    unsigned long long u = negative ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
    do {
      *--p = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u);
    if (negative) *--p = '-';
    std::memcpy(out, p, static_cast<std::size_t>(end - p));
    return static_cast<std::size_t>(end - p);
  }
  const int n = std::snprintf(out, kNumberTextBytes, "%.14g", v);
  return n > 0 ? static_cast<std::size_t>(n) : 0;
}

std::optional<double> string_to_number(std::string_view s) {
  const std::string text(s);  // terminated, for strtod
  const char* begin = text.c_str();
  char* end = nullptr;
  double v = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  if (*end == 'x' || *end == 'X') v = static_cast<double>(std::strtoul(begin, &end, 16));  // as Lua 5.1
  while (*end && std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (end != begin + text.size()) return std::nullopt;
  return v;
}

namespace {

// Lua 5.1's conversion of a number argument to an integer (a C cast, truncating), as x86-64 does
// it: NaN and values outside the 64-bit range give the smallest integer (a plain cast would be
// undefined behaviour there).
long long integer_of(double d) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return std::numeric_limits<long long>::min();
  return static_cast<long long>(d);
}

// A relative string position: negative counts back from the end.
long long position(long long pos, std::size_t length) {
  if (pos < 0) pos += static_cast<long long>(length) + 1;
  return pos >= 0 ? pos : 0;
}

// A float conversion with at most a width and a precision (no flags) of a finite number, written by
// std::to_chars, which the C++ standard defines to round as printf does, without glibc's
// multi-precision path. False when the conversion is not of that form (snprintf writes it).
bool write_float(const FormatConversion& c, double v, std::string& out) {
  std::string_view spec(c.spec);
  spec = spec.substr(1, spec.size() - 2);
  auto digits = [&](std::size_t& at, int& n) {
    n = 0;
    while (at < spec.size() && spec[at] >= '0' && spec[at] <= '9') n = n * 10 + (spec[at++] - '0');
  };
  std::size_t at = 0;
  int width = 0, precision = 6;
  if (!spec.empty() && spec[0] == '0') return false;  // the zero-padding flag
  digits(at, width);
  if (at < spec.size()) {
    if (spec[at++] != '.') return false;  // a flag
    digits(at, precision);
  }
  if (at != spec.size() || !std::isfinite(v)) return false;
  const char letter = c.letter;
  const std::chars_format how = letter == 'f'                    ? std::chars_format::fixed
                                : letter == 'e' || letter == 'E' ? std::chars_format::scientific
                                                                 : std::chars_format::general;
  if (how == std::chars_format::general && precision == 0) precision = 1;  // as printf reads %.0g
  char text[512];
  const auto [end, error] = std::to_chars(text, text + sizeof text, v, how, precision);
  if (error != std::errc()) return false;
  const std::size_t length = static_cast<std::size_t>(end - text);
  if (letter == 'E' || letter == 'G')
    for (char* p = text; p != end; ++p)
      if (*p == 'e') *p = 'E';
  if (length < static_cast<std::size_t>(width)) out.append(static_cast<std::size_t>(width) - length, ' ');
  out.append(text, length);
  return true;
}

struct NumberText {
  char bytes[kNumberTextBytes];
  std::size_t length = 0;
};

const char* kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::kNumber: return "number";
    case ArgKind::kBoolean: return "boolean";
    case ArgKind::kString: return "string";
  }
  return "?";
}

class Call {
 public:
  Call(Heap& heap, const StringArgs& in, std::uint64_t max_bytes) : heap_(heap), in_(in), max_bytes_(max_bytes) {}

  const String* str(unsigned i) const { return static_cast<const String*>(in_.args[i].ref); }
  double num(unsigned i) const { return in_.args[i].n; }
  ArgKind kind(unsigned i) const { return arg_kind(in_.kinds, i); }

  Result<Value> string(std::string_view bytes) {
    if (bytes.size() > max_bytes_) return too_long(bytes.size());
    Value v;
    v.ref = heap_.new_string(bytes);
    return v;
  }
  Error too_long(std::uint64_t bytes) const {
    return make_error("a string of " + std::to_string(bytes) + " bytes is over the script memory budget (" +
                      std::to_string(max_bytes_) + " bytes)");
  }
  // Argument i as text: a string's bytes, a number as tostring writes it.
  std::string text(unsigned i) const {
    if (kind(i) == ArgKind::kString) return std::string(str(i)->view());
    if (kind(i) == ArgKind::kBoolean) return num(i) != 0 ? "true" : "false";
    return format_number(num(i));
  }

  Result<Value> run(StringFn fn) {
    switch (fn) {
      case StringFn::kConcat: {
        // The numbers' text first, then the string made at its size and written once.
        NumberText numbers[kMaxStringArgs];
        std::uint64_t total = 0;
        for (unsigned i = 0; i < in_.count; ++i) {
          if (kind(i) == ArgKind::kString) {
            total += str(i)->length;
          } else {
            numbers[i].length = number_text(num(i), numbers[i].bytes);
            total += numbers[i].length;
          }
        }
        if (total > max_bytes_) return too_long(total);
        String* joined = heap_.new_string(static_cast<std::size_t>(total));
        char* out = joined->bytes();
        for (unsigned i = 0; i < in_.count; ++i) {
          const std::string_view part =
              kind(i) == ArgKind::kString ? str(i)->view() : std::string_view(numbers[i].bytes, numbers[i].length);
          if (!part.empty()) std::memcpy(out, part.data(), part.size());
          out += part.size();
        }
        Value v;
        v.ref = joined;
        return v;
      }
      case StringFn::kToString: return string(text(0));
      case StringFn::kToNumber: {
        if (kind(0) == ArgKind::kNumber) return Value{num(0)};
        const auto v = string_to_number(str(0)->view());
        if (!v)
          return make_error("tonumber: '" + std::string(str(0)->view().substr(0, 40)) +
                            "' is not a number (nil is outside Kiln's script subset)");
        return Value{*v};
      }
      case StringFn::kLen: return Value{static_cast<double>(str(0)->length)};
      case StringFn::kSub: {
        const std::string_view s = str(0)->view();
        long long start = position(integer_of(num(1)), s.size());
        long long end = position(in_.count > 2 ? integer_of(num(2)) : -1, s.size());
        if (start < 1) start = 1;
        if (end > static_cast<long long>(s.size())) end = static_cast<long long>(s.size());
        if (start > end) return string("");
        return string(s.substr(static_cast<std::size_t>(start - 1), static_cast<std::size_t>(end - start + 1)));
      }
      case StringFn::kUpper:
      case StringFn::kLower: {
        std::string out(str(0)->view());
        for (char& c : out)
          c = static_cast<char>(fn == StringFn::kUpper ? std::toupper(static_cast<unsigned char>(c))
                                                       : std::tolower(static_cast<unsigned char>(c)));
        return string(out);
      }
      case StringFn::kRep: {
        const std::string_view s = str(0)->view();
        const long long n = integer_of(num(1));
        if (n <= 0 || s.empty()) return string("");
        const double total = static_cast<double>(s.size()) * static_cast<double>(n);
        if (total > static_cast<double>(max_bytes_)) return too_long(static_cast<std::uint64_t>(total));
        std::string out;
        out.reserve(static_cast<std::size_t>(total));
        for (long long k = 0; k < n; ++k) out.append(s);
        return string(out);
      }
      case StringFn::kByte: {
        const std::string_view s = str(0)->view();
        const long long i = position(in_.count > 1 ? integer_of(num(1)) : 1, s.size());
        if (i < 1 || i > static_cast<long long>(s.size()))
          return make_error("string.byte: position " + format_number(in_.count > 1 ? num(1) : 1) +
                            " outside the string (length " + std::to_string(s.size()) +
                            "; nil is outside Kiln's script subset)");
        return Value{static_cast<double>(static_cast<unsigned char>(s[static_cast<std::size_t>(i - 1)]))};
      }
      case StringFn::kChar: {
        for (unsigned i = 0; i < in_.count; ++i) {
          const long long c = integer_of(num(i));
          if (c < 0 || c > 255)
            return make_error("bad argument #" + std::to_string(i + 1) + " to 'char' (invalid value)");
        }
        String* made = heap_.new_string(in_.count);
        for (unsigned i = 0; i < in_.count; ++i) made->bytes()[i] = static_cast<char>(integer_of(num(i)));
        Value v;
        v.ref = made;
        return v;
      }
      case StringFn::kFormat: return format();
      case StringFn::kCount: break;
    }
    return make_error("unknown string function");
  }

 private:
  Result<Value> format() {
    const std::string_view pattern = str(0)->view();
    std::string out;
    out.reserve(pattern.size() + 32);
    std::size_t at = 0;
    unsigned arg = 0;
    for (;;) {
      auto conversion = next_conversion(pattern, at, out);
      if (!conversion) return conversion.error();
      if (!*conversion) break;
      const FormatConversion& c = **conversion;
      ++arg;
      const auto bad = [&] { return "bad argument #" + std::to_string(arg + 1) + " to 'format'"; };
      if (arg >= in_.count) return make_error(bad() + " (no value)");
      const ArgKind k = kind(arg);
      if (takes_number(c.letter) ? k != ArgKind::kNumber : k == ArgKind::kBoolean)
        return make_error(bad() + " (" + (takes_number(c.letter) ? "number" : "string") + " expected, got " +
                          kind_name(k) + ")");
      // The plain conversions (no flags, width or precision) are written without snprintf.
      if (c.spec.size() == 2 && c.letter == 's' && k == ArgKind::kString &&
          (str(arg)->length >= 100 || !std::memchr(str(arg)->bytes(), 0, str(arg)->length))) {
        out.append(str(arg)->view());
        if (out.size() > max_bytes_) return too_long(out.size());
        continue;
      }
      if (c.spec.size() == 2 && (c.letter == 'd' || c.letter == 'i')) {
        const long long n = integer_of(num(arg));
        if (std::fabs(static_cast<double>(n)) < kPlainWhole) {  // %d and number_text write it alike
          char digits[kNumberTextBytes];
          out.append(digits, number_text(static_cast<double>(n), digits));
          continue;
        }
      }
      if ((c.letter == 'f' || c.letter == 'e' || c.letter == 'E' || c.letter == 'g' || c.letter == 'G') &&
          write_float(c, num(arg), out)) {
        if (out.size() > max_bytes_) return too_long(out.size());
        continue;
      }
      char buf[512];
      switch (c.letter) {
        case 'c': std::snprintf(buf, sizeof buf, c.spec.c_str(), static_cast<int>(integer_of(num(arg)))); break;
        case 'd':
        case 'i': {
          const std::string spec = c.spec.substr(0, c.spec.size() - 1) + "ll" + c.letter;
          std::snprintf(buf, sizeof buf, spec.c_str(), integer_of(num(arg)));
          break;
        }
        case 'o':
        case 'u':
        case 'x':
        case 'X': {
          const std::string spec = c.spec.substr(0, c.spec.size() - 1) + "ll" + c.letter;
          std::snprintf(buf, sizeof buf, spec.c_str(), static_cast<unsigned long long>(integer_of(num(arg))));
          break;
        }
        case 'e':
        case 'E':
        case 'f':
        case 'g':
        case 'G': std::snprintf(buf, sizeof buf, c.spec.c_str(), num(arg)); break;
        case 'q': {
          out += '"';
          for (char ch : text(arg)) {
            if (ch == '"' || ch == '\\' || ch == '\n') {
              out += '\\';
              out += ch;
            } else if (ch == '\r') {
              out += "\\r";
            } else if (ch == '\0') {
              out += "\\000";
            } else {
              out += ch;
            }
          }
          out += '"';
          continue;
        }
        default: {  // 's'
          const std::string s = text(arg);
          if (c.spec.find('.') == std::string::npos && s.size() >= 100) {  // no precision: the whole string
            out += s;
            continue;
          }
          std::snprintf(buf, sizeof buf, c.spec.c_str(), s.c_str());
          break;
        }
      }
      out += buf;  // up to a zero byte, as Lua 5.1 adds it
      if (out.size() > max_bytes_) return too_long(out.size());
    }
    return string(out);
  }

  Heap& heap_;
  const StringArgs& in_;
  std::uint64_t max_bytes_;
};

}  // namespace

Result<Value> call_string_function(Heap& heap, StringFn fn, const StringArgs& in, std::uint64_t max_bytes) {
  return Call(heap, in, max_bytes).run(fn);
}

}  // namespace kiln::jit
