#include "kiln/materials/shader_declaration.h"

#include <algorithm>
#include <cctype>

namespace kiln::materials {
namespace {

std::string join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : " ") + i;
  return out.empty() ? "(none)" : out;
}

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The line's words, split at whitespace as the preprocessor does (and `>>` would: the C locale's
// space characters). Only lines that may hold a directive are split: a shader's other lines are
// most of it.
std::vector<std::string> directive_words(std::string_view line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size() && is_space(line[i])) ++i;
  if (i == line.size() || line[i] != '#') return words;
  while (i < line.size()) {
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    words.emplace_back(line.substr(start, i - start));
    while (i < line.size() && is_space(line[i])) ++i;
  }
  return words;
}

}  // namespace

Status check_keyword_syntax(std::string_view keyword) {
  if (keyword.empty()) return make_error("empty keyword");
  for (char c : keyword) {
    if (c == ';' || c == '|' || std::isspace(static_cast<unsigned char>(c)))
      return make_error("keyword '" + std::string(keyword) + "' contains '" + std::string(1, c) +
                        "' (keywords may not contain ';', '|' or whitespace)");
  }
  // It becomes a preprocessor name: an identifier, and not one GLSL reserves.
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (std::isdigit(static_cast<unsigned char>(keyword[0])) || !std::all_of(keyword.begin(), keyword.end(), ident))
    return make_error("keyword '" + std::string(keyword) + "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  if (keyword.rfind("GL_", 0) == 0 || keyword.find("__") != std::string_view::npos)
    return make_error("keyword '" + std::string(keyword) + "' uses a name GLSL reserves (GL_ prefix or '__')");
  return {};
}

Result<ShaderDeclaration> parse_shader_declaration(const std::string& file, std::string_view source) {
  ShaderDeclaration decl;
  std::vector<std::string> problems;  // every bad pragma, not only the first
  std::size_t line_no = 0, pos = 0;
  while (pos <= source.size()) {
    std::size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = source.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    auto words = directive_words(line);
    if (!words.empty() && words[0] == "#" && words.size() > 1) {  // "# pragma kiln", as the preprocessor allows
      words.erase(words.begin());
      words[0] = "#" + words[0];
    }
    if (words.size() < 2 || words[0] != "#pragma" || words[1] != "kiln") continue;
    const std::string where = file + ":" + std::to_string(line_no) + ": ";
    auto problem = [&](const std::string& what) { problems.push_back(where + "error: " + what); };
    if (words.size() < 3) {
      problem("'#pragma kiln' needs 'keywords', 'passes', 'ship', 'invalid' or 'entry'");
      continue;
    }
    if (words[2] == "entry") {
      const auto identifier = [](const std::string& w) {
        return !std::isdigit(static_cast<unsigned char>(w[0])) && std::all_of(w.begin(), w.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
      };
      if (words.size() != 4)
        problem("'#pragma kiln entry' names one function, the stage's entry point");
      else if (!identifier(words[3]))
        problem("'#pragma kiln entry " + words[3] + "': not a function name ([A-Za-z_][A-Za-z0-9_]*)");
      else if (!decl.entry.empty() && decl.entry != words[3])
        problem("'#pragma kiln entry " + words[3] + "': the entry point is already " + decl.entry);
      else
        decl.entry = words[3];
      continue;
    }
    if (words[2] == "ship" || words[2] == "invalid") {
      std::set<std::string> set;
      bool legal = true;
      // `#pragma kiln ship A B always`: shipped whether or not a usage record names it.
      const bool always = words[2] == "ship" && words.size() > 3 && words.back() == "always";
      if (always) words.pop_back();
      for (std::size_t i = 3; i < words.size(); ++i) {
        if (auto s = check_keyword_syntax(words[i]); !s) problem(s.error().message), legal = false;
        set.insert(words[i]);
      }
      if (words[2] == "invalid" && set.empty())
        problem("'#pragma kiln invalid' needs the keywords that may not be combined"), legal = false;
      if (legal && always) decl.ship_always.push_back(set);
      if (legal) (words[2] == "ship" ? decl.ship : decl.invalid).push_back(std::move(set));
      continue;
    }
    std::set<std::string>* target = words[2] == "keywords" ? &decl.keywords
                                    : words[2] == "passes" ? &decl.passes
                                                           : nullptr;
    if (!target) {
      problem("unknown '#pragma kiln " + words[2] + "' (expected keywords, passes, ship, invalid or entry)");
      continue;
    }
    if (words.size() == 3) problem("'#pragma kiln " + words[2] + "' names none");
    for (std::size_t i = 3; i < words.size(); ++i) {
      if (auto s = check_keyword_syntax(words[i]); !s) {
        problem(s.error().message);
        continue;
      }
      if (target == &decl.passes) {
        // Passes become KILN_PASS_<UPPER>: two that differ only in case would share a define.
        bool clash = false;
        for (const auto& other : decl.passes)
          if (other != words[i] && pass_define(other) == pass_define(words[i]))
            problem("passes '" + other + "' and '" + words[i] + "' differ only in case"), clash = true;
        if (clash) continue;
      }
      if (target->insert(words[i]).second && target == &decl.passes) decl.pass_order.push_back(words[i]);
    }
  }
  if (!problems.empty()) {
    std::string message;
    for (const auto& p : problems) message += (message.empty() ? "" : "\n") + p;
    return make_error(message);
  }
  return decl;
}

ShaderDeclaration merge_declarations(const std::vector<ShaderDeclaration>& stages) {
  ShaderDeclaration merged;
  for (const auto& s : stages) {
    merged.keywords.insert(s.keywords.begin(), s.keywords.end());
    for (const auto& pass : s.pass_order)
      if (merged.passes.insert(pass).second) merged.pass_order.push_back(pass);
    merged.ship.insert(merged.ship.end(), s.ship.begin(), s.ship.end());
    merged.ship_always.insert(merged.ship_always.end(), s.ship_always.begin(), s.ship_always.end());
    merged.invalid.insert(merged.invalid.end(), s.invalid.begin(), s.invalid.end());
  }
  merged.declares_passes = !merged.passes.empty();
  if (merged.passes.empty()) {
    merged.passes.insert("Main");
    merged.pass_order.push_back("Main");
  }
  return merged;
}

Status check_variant_request(const std::string& shader, const ShaderDeclaration& declaration, const std::string& pass,
                             const std::vector<std::string>& keywords) {
  if (!declaration.passes.count(pass))
    return make_error("shader " + shader + " has no pass '" + pass + "' (passes: " + join(declaration.passes) + ")");
  for (const auto& k : keywords) {
    if (auto s = check_keyword_syntax(k); !s) return make_error("shader " + shader + ": " + s.error().message);
    if (!declaration.keywords.count(k))
      return make_error("unknown keyword '" + k + "' for shader " + shader +
                        " (legal keywords: " + join(declaration.keywords) + ")");
  }
  return {};
}

std::string pass_define(std::string_view pass) {
  std::string out = "KILN_PASS_";
  for (char c : pass) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace kiln::materials
