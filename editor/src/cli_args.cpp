#include "cli_args.h"

#include <algorithm>

namespace kiln::cli {

std::string Args::option(const std::string& name, const std::string& fallback) const {
  std::string value = fallback;
  for (const auto& [n, v] : options)
    if (n == name) value = v;
  return value;
}

std::vector<std::string> Args::option_values(const std::string& name) const {
  std::vector<std::string> values;
  for (const auto& [n, v] : options)
    if (n == name) values.push_back(v);
  return values;
}

Status Args::check_options(const std::vector<std::string>& allowed) const {
  for (const auto& [n, v] : options)
    if (std::find(allowed.begin(), allowed.end(), n) == allowed.end())
      return make_error("unknown option " + n + " (see kiln --help)");
  return {};
}

}  // namespace kiln::cli
