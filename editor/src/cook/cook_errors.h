#pragma once
// The errors of one cook, for people and for tools: one entry per distinct (file, line, message),
// the file relative to the project root, listing the variants it breaks. A broken line in an
// include shared by 23 variants is one entry, not 46 lines.
//
// Thread-safety: owned by the cook's thread.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kiln::cook {

struct CookError {
  std::string file;                   // relative to the project root when inside it; empty when no file applies
  int line = 0;                       // 0 when no line applies
  int column = 0;                     // 0 when no column applies
  std::string message;                // "error: ..." for compiler diagnostics, else the problem
  std::vector<std::string> variants;  // "shaders/lit Forward FOG;NORMALMAP" for each variant it breaks
};

class CookErrors {
 public:
  explicit CookErrors(const std::filesystem::path& root);
  // Adds every line of `text` ("file:line:column: message", "file:line: message", "file: message"
  // or a bare message); `variant` (may be empty) is the variant whose build reported it.
  void add(const std::string& text, const std::string& variant = {});
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  const std::vector<CookError>& entries() const { return entries_; }

  // One line per entry: "file:line:column: message (in 23 variants: a, b, c and 20 more)".
  std::vector<std::string> lines() const;
  nlohmann::json to_json() const;

 private:
  std::string relative(const std::string& file) const;
  std::vector<std::string> prefixes_;  // the root as given and absolute, each ending in '/'
  std::vector<CookError> entries_;
};

}  // namespace kiln::cook
