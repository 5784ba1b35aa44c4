#include "kiln/project/project_settings.h"

#include <fstream>
#include <iterator>
#include <algorithm>
#include <cctype>
#include <set>

#include "kiln/core/input_limits.h"
#include "kiln/core/json_document.h"

namespace kiln::project {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool relative_path(const std::string& s) { return !s.empty() && s[0] != '/' && s.find('\0') == std::string::npos; }

// NAME or NAME=VALUE, NAME an identifier, VALUE on one line.
bool define_text(const std::string& s) {
  const std::size_t eq = std::min(s.find('='), s.size());
  if (eq == 0 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (std::size_t i = 0; i < eq; ++i)
    if (!std::isalnum(static_cast<unsigned char>(s[i])) && s[i] != '_') return false;
  return s.find('\n') == std::string::npos;
}

}  // namespace

Result<ProjectSettings> load_project_settings(const fs::path& root) {
  ProjectSettings settings;
  const fs::path file = root / kSettingsFile;
  std::error_code ec;
  const json* cook = nullptr;
  json doc;
  if (fs::exists(fs::symlink_status(file, ec))) {
    auto text = read_input_file(file, limits::kJsonFileBytes, "project settings file");
    if (!text) return text.error();
    auto parsed = parse_json_document(file.string(), *text);
    if (!parsed) return parsed.error();
    doc = std::move(*parsed);
    if (doc.is_object() && doc.contains("cook")) cook = &doc["cook"];
  }
  std::vector<std::string> problems;
  auto problem = [&](const std::string& pointer, const std::string& what) {
    problems.push_back(file.string() + ": " + pointer + ": " + what);
  };
  auto strings = [&](const json& v, const std::string& at, bool (*shape)(const std::string&), const char* expected) {
    std::vector<std::string> out;
    if (!v.is_array()) {
      problem(at, "expected an array of strings");
      return out;
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string() || !shape(v[i].get<std::string>()))
        problem(at + "/" + std::to_string(i), std::string("expected ") + expected + ", got " + v[i].dump());
      else
        out.push_back(v[i].get<std::string>());
    }
    return out;
  };
  if (cook && !cook->is_object()) problem("/cook", "expected an object");
  if (cook && cook->is_object()) {
    for (auto it = cook->begin(); it != cook->end(); ++it) {
      const std::string at = "/cook/" + json_pointer_token(it.key());
      if (it.key() == "targets") {
        if (!it->is_array() || it->empty()) {
          problem(at, "expected a non-empty array of {\"backend\", \"target_env\"}");
          continue;
        }
        for (std::size_t i = 0; i < it->size(); ++i) {
          const json& t = (*it)[i];
          const std::string ti = at + "/" + std::to_string(i);
          runtime::ShaderTarget target;
          if (!t.is_object()) {
            problem(ti, "expected {\"backend\": ..., \"target_env\": ...}");
            continue;
          }
          for (auto f = t.begin(); f != t.end(); ++f) {
            const std::string value = f->is_string() ? f->get<std::string>() : f->dump();
            if (f.key() == "backend") {
              if (auto b = runtime::backend_named(value))
                target.backend = *b;
              else
                problem(ti + "/backend", "unknown backend '" + value + "' (" + runtime::backend_names() + ")");
            } else if (f.key() == "target_env") {
              if (auto e = runtime::parse_target_env(value))
                target.target_env = *e;
              else
                problem(ti + "/target_env",
                        "unknown target environment '" + value + "' (" + runtime::target_env_names() + ")");
            } else if (f.key() == "max_size") {
              if (f->is_number_unsigned() && f->get<std::uint64_t>() >= 1 &&
                  f->get<std::uint64_t>() <= limits::kImageSide)
                target.max_size = f->get<std::uint32_t>();
              else
                problem(ti + "/max_size", "expected a whole number of pixels from 1 to " +
                                              std::to_string(limits::kImageSide) + ", got " + f->dump());
            } else if (f.key() == "textures") {
              if (auto shipping = f->is_string() ? textures::parse_texture_shipping(value) : std::nullopt)
                target.textures = *shipping;
              else
                problem(ti + "/textures", "expected \"rgba8\", \"bc\" or \"astc\", got " + f->dump());
            } else if (f.key() == "texture_quality") {
              if (auto quality = f->is_string() ? textures::parse_texture_quality(value) : std::nullopt)
                target.texture_quality = *quality;
              else
                problem(ti + "/texture_quality", "expected \"low\", \"medium\" or \"high\", got " + f->dump());
            } else {
              problem(ti + "/" + json_pointer_token(f.key()),
                      "unknown field (expected backend, target_env, max_size, textures, texture_quality)");
            }
          }
          settings.targets.push_back(target);
        }
      } else if (it.key() == "include_dirs") {
        for (const auto& dir : strings(*it, at, relative_path, "a directory relative to the project")) {
          const fs::path normal = fs::path(dir).lexically_normal();
          if (normal.empty() || *normal.begin() == ".." || normal.is_absolute())
            problem(at, "'" + dir + "' leaves the project (include directories must be inside it)");
          else
            settings.include_dirs.push_back(normal.generic_string());
        }
      } else if (it.key() == "defines") {
        settings.defines = strings(*it, at, define_text, "NAME or NAME=VALUE");
      } else if (it.key() == "sign_key") {
        if (!it->is_string() || it->get<std::string>().empty() ||
            it->get<std::string>().find('\0') != std::string::npos)
          problem(at, "expected the path of a signing key (kiln key generate)");
        else
          settings.sign_key = (root / it->get<std::string>()).lexically_normal();
      } else {
        problem(at, "unknown field (expected targets, include_dirs, defines, sign_key)");
      }
    }
  }
  std::set<std::string> seen;
  for (const auto& t : settings.targets)
    if (!seen.insert(t.id()).second) problem("/cook/targets", "target " + t.id() + " listed twice");
  if (settings.targets.empty()) settings.targets.push_back({});
  if (!problems.empty()) {
    std::string message;
    for (const auto& p : problems) message += (message.empty() ? "" : "\n") + p;
    return make_error(message);
  }
  return settings;
}

}  // namespace kiln::project
