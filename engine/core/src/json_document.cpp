#include "kiln/core/json_document.h"

#include <stdexcept>

namespace kiln {

Result<nlohmann::json> parse_json_document(const std::string& file_name, std::string_view text) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points one past the offending character; count lines up to it.
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    // nlohmann's message is "[json.exception.parse_error.101] parse error at line L, column C: what".
    std::string what = e.what();
    if (auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return make_error(file_name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": parse error: " + what);
  } catch (const nlohmann::json::exception& e) {
    // Not a syntax error but a value the parser cannot hold (a number out of range, ...): no place.
    std::string what = e.what();
    if (auto bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
    return make_error(file_name + ": invalid JSON: " + what);
  }
}

std::uint32_t json_u32(const nlohmann::json& value, std::string_view what) {
  if (!value.is_number_unsigned() || value.get<std::uint64_t>() > UINT32_MAX)
    throw std::runtime_error("'" + std::string(what) + "' is " + value.dump() + ", not an unsigned 32-bit integer");
  return static_cast<std::uint32_t>(value.get<std::uint64_t>());
}

std::uint32_t json_u32_field(const nlohmann::json& object, const char* key) { return json_u32(object.at(key), key); }

std::string json_pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

}  // namespace kiln
