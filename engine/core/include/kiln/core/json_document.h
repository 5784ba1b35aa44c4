#pragma once
// Parsing JSON documents (config, materials, manifests) with errors that say where.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kiln/core/result.h"

namespace kiln {

// Parses `text`, the contents of `file_name`. A syntax error becomes
// "file:line:col: parse error: <what>", never an exception.
Result<nlohmann::json> parse_json_document(const std::string& file_name, std::string_view text);

// One JSON pointer token (RFC 6901): '~' is written "~0" and '/' is written "~1".
std::string json_pointer_token(std::string_view key);

}  // namespace kiln
