#include "kiln/core/text.h"

#include <algorithm>
#include <cstdint>

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

std::optional<std::size_t> name_index(std::span<const std::string_view> names, std::string_view name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  return std::nullopt;
}

std::string listed_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::string count_of(std::size_t count, std::string_view noun) {
  return std::to_string(count) + " " + std::string(noun) + (count == 1 ? "" : "s");
}

namespace {

// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`: the optimal string
// alignment distance, so that "--jbos" is one edit from "--jobs".
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

}  // namespace

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = SIZE_MAX;
  for (const auto& c : candidates)
    if (const std::size_t d = edit_distance(name, c); d < best_distance) best_distance = d, best = c;
  return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string best = closest_name(name, candidates);
  if (best.empty()) return {};
  const std::size_t d = edit_distance(name, best);
  return d > 0 && d <= std::max<std::size_t>(1, name.size() / 3) && d < name.size() ? " (did you mean '" + best + "'?)"
                                                                                    : std::string();
}

std::string hex_bytes(std::span<const std::uint8_t> bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

}  // namespace kiln
