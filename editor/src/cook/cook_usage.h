#pragma once
// The cook's usage records (`kiln cook --usage FILE... [--usage-lenient]`): read and united, their
// digest for the manifest, and the report of what the selection shipped and left out.
//
// Thread-safety: called from the cook's thread.

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/core/result.h"
#include "kiln/project/usage_selection.h"
#include "kiln/usage/usage_record.h"

namespace kiln::cook {

struct UsageInput {
  std::vector<std::string> files;
  usage::UsageRecord record;  // their union
  std::string sha256;         // of encode_usage(record): what the manifest names
};

// Errors name the file and the JSON pointer; records naming no variant are refused (a record of a
// run that played nothing would ship nothing).
Result<UsageInput> read_usage_records(const std::vector<std::string>& files);

// The report's "usage" object.
nlohmann::json usage_report(const UsageInput& input, const project::UsageSelection& selection, bool lenient,
                            std::size_t pages_shipped, std::size_t pages_cold);
// Its lines for people: what shipped, what was left out by material and keyword, stale names.
std::vector<std::string> usage_lines(const nlohmann::json& usage);

}  // namespace kiln::cook
