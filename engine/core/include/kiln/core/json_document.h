#pragma once
// Parsing JSON documents (config, materials, manifests) with errors that say where.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kiln/core/result.h"

namespace kiln {

// Parses `text`, the contents of `file_name`. A syntax error becomes
// "file:line:col: parse error: <what>", never an exception.
Result<nlohmann::json> parse_json_document(const std::string& file_name, std::string_view text);

// `value` as an unsigned 32-bit integer. A fraction, a negative, a boolean, a string or a number
// past 2^32-1 throws std::runtime_error naming `what`: for readers that already turn nlohmann's own
// exceptions (a missing key, a mistyped field) into an error message. nlohmann's get<std::uint32_t>
// would instead truncate a fraction, wrap a large integer and, for a float out of range, be undefined.
std::uint32_t json_u32(const nlohmann::json& value, std::string_view what);
// The same for the field `key` of `object` (a missing key throws nlohmann's out_of_range).
std::uint32_t json_u32_field(const nlohmann::json& object, const char* key);

// One JSON pointer token (RFC 6901): '~' is written "~0" and '/' is written "~1".
std::string json_pointer_token(std::string_view key);

}  // namespace kiln
