#include "kiln/core/text.h"

#include <algorithm>

namespace kiln {

std::vector<std::string> split_nonempty(std::string_view text, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string without_credentials(std::string_view text) {
  const auto scheme = text.find("://");
  if (scheme == std::string_view::npos) return std::string(text);
  const std::size_t host_start = scheme + 3;
  const std::size_t path = std::min(text.find('/', host_start), text.size());
  const auto at = text.substr(host_start, path - host_start).rfind('@');
  if (at == std::string_view::npos) return std::string(text);
  return std::string(text.substr(0, host_start)) + "***" + std::string(text.substr(host_start + at));
}

std::string count_of(std::size_t count, std::string_view noun) {
  return std::to_string(count) + " " + std::string(noun) + (count == 1 ? "" : "s");
}

}  // namespace kiln
