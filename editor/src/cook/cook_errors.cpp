#include "cook/cook_errors.h"

#include <algorithm>
#include <cctype>

#include "kiln/core/project_paths.h"

namespace kiln::cook {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kVariantsShown = 3;

}  // namespace

CookErrors::CookErrors(const fs::path& root) : prefixes_(project_prefixes(root)) {}

std::string CookErrors::relative(const std::string& file) const {
  for (const auto& prefix : prefixes_)
    if (file.rfind(prefix, 0) == 0) return file.substr(prefix.size());
  if (file.rfind("./", 0) == 0) return file.substr(2);  // a cook of "." names files as the project does
  return file;
}

void CookErrors::add(const std::string& text, const std::string& variant) {
  // "file:line:column: message" (scripts, JSON), "file:line: message" (compilers) or "file: message"
  // (JSON pointers, I/O). Scanned by hand: a diagnostic line can be long, and std::regex recurses
  // per character.
  // Paths under the project are named relative to it wherever they stand, as the editor names them.
  const std::string relative_text = relative_to_project(text, prefixes_);
  std::size_t start = 0;
  while (start <= relative_text.size()) {
    const std::size_t end = std::min(relative_text.find('\n', start), relative_text.size());
    const std::string line = relative_text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    CookError e;
    e.message = line;
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos && colon > 0 && !std::isspace(static_cast<unsigned char>(line[0]))) {
      std::size_t digits = colon + 1;
      while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
      const std::string file = line.substr(0, colon);
      const std::size_t dot = file.rfind('.');
      if (digits > colon + 1 && digits < line.size() && line[digits] == ':' && digits - colon - 1 <= 9) {
        e.file = relative(file);
        e.line = std::stoi(line.substr(colon + 1, digits - colon - 1));
        std::size_t rest = digits + 1, column_end = rest;
        while (column_end < line.size() && std::isdigit(static_cast<unsigned char>(line[column_end]))) ++column_end;
        if (column_end > rest && column_end - rest <= 9 && column_end < line.size() && line[column_end] == ':') {
          e.column = std::stoi(line.substr(rest, column_end - rest));
          rest = column_end + 1;
        }
        e.message = line.substr(rest + (rest < line.size() && line[rest] == ' '));
      } else if (dot != std::string::npos && dot + 1 < file.size() && file.find(' ') == std::string::npos &&
                 colon + 1 < line.size() && line[colon + 1] == ' ') {
        e.file = relative(file);
        e.message = line.substr(colon + 2);
      }
    }
    while (!e.message.empty() && std::isspace(static_cast<unsigned char>(e.message.back()))) e.message.pop_back();
    auto same = std::find_if(entries_.begin(), entries_.end(), [&](const CookError& o) {
      return o.file == e.file && o.line == e.line && o.column == e.column && o.message == e.message;
    });
    if (same == entries_.end()) same = entries_.insert(entries_.end(), std::move(e));
    if (!variant.empty() && std::find(same->variants.begin(), same->variants.end(), variant) == same->variants.end())
      same->variants.push_back(variant);
  }
}

std::vector<std::string> CookErrors::lines() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) {
    std::string s = e.file.empty() ? e.message
                                   : e.file + (e.line ? ":" + std::to_string(e.line) : "") +
                                         (e.column ? ":" + std::to_string(e.column) : "") + ": " + e.message;
    if (!e.variants.empty()) {
      s += e.variants.size() == 1 ? " (in variant " : " (in " + std::to_string(e.variants.size()) + " variants: ";
      for (std::size_t i = 0; i < std::min(e.variants.size(), kVariantsShown); ++i)
        s += (i ? ", " : "") + e.variants[i];
      if (e.variants.size() > kVariantsShown)
        s += " and " + std::to_string(e.variants.size() - kVariantsShown) + " more";
      s += ")";
    }
    out.push_back(std::move(s));
  }
  return out;
}

nlohmann::json CookErrors::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : entries_)
    out.push_back(
        {{"file", e.file}, {"line", e.line}, {"column", e.column}, {"message", e.message}, {"variants", e.variants}});
  return out;
}

}  // namespace kiln::cook
