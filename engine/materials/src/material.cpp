#include "kiln/materials/material.h"

#include <algorithm>
#include <set>

#include <fstream>
#include <sstream>

#include "kiln/core/input_limits.h"
#include "kiln/core/json_document.h"
#include "kiln/core/project_paths.h"
#include "kiln/materials/variant_rules.h"
#include "kiln/textures/texture_settings.h"

namespace kiln::materials {
namespace {

using nlohmann::json;

struct Problems {
  std::string file;
  std::vector<std::string> lines;
  void add(const std::string& pointer, const std::string& problem) {
    lines.push_back(file + ": " + pointer + ": " + problem);
  }
  Error error() const {
    std::string msg;
    for (const auto& l : lines) msg += (msg.empty() ? "" : "\n") + l;
    return make_error(msg);
  }
};

std::string type_name(const json& v) { return v.type_name(); }

void read_keywords(const json& v, std::vector<std::string>& out, Problems& p, const std::string& at) {
  if (!v.is_array()) return p.add(at, std::string("expected an array of strings, got ") + type_name(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string ptr = at + "/" + std::to_string(i);
    if (!v[i].is_string()) {
      p.add(ptr, std::string("expected a string, got ") + type_name(v[i]));
      continue;
    }
    const std::string k = v[i].get<std::string>();
    if (auto s = check_keyword_syntax(k); !s)
      p.add(ptr, s.error().message);
    else
      out.push_back(k);
  }
}

void read_params(const json& v, Material& m, Problems& p) {
  if (!v.is_object()) return p.add("/params", std::string("expected an object, got ") + type_name(v));
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string ptr = "/params/" + json_pointer_token(it.key());
    std::vector<double> values;
    if (it->is_number()) {
      values.push_back(it->get<double>());
    } else if (it->is_array() && !it->empty() && it->size() <= 4) {
      for (std::size_t i = 0; i < it->size(); ++i) {
        if (!(*it)[i].is_number()) {
          p.add(ptr + "/" + std::to_string(i), std::string("expected a number, got ") + type_name((*it)[i]));
          values.clear();
          break;
        }
        values.push_back((*it)[i].get<double>());
      }
      if (values.empty()) continue;
    } else {
      p.add(ptr, "expected a number or an array of 1 to 4 numbers, got " + it->dump());
      continue;
    }
    m.params[it.key()] = std::move(values);
  }
}

void read_textures(const json& v, Material& m, Problems& p) {
  if (!v.is_object()) return p.add("/textures", std::string("expected an object, got ") + type_name(v));
  for (auto it = v.begin(); it != v.end(); ++it) {
    std::string ptr = "/textures/" + json_pointer_token(it.key());
    const json* file = &*it;
    if (it->is_object()) {  // {"file": "...", settings}
      auto options = textures::parse_texture_options(p.file, *it, ptr);
      if (!options) {
        std::istringstream lines(options.error().message);
        for (std::string line; std::getline(lines, line);) p.lines.push_back(line);
      } else {
        m.texture_options[it.key()] = *options;
      }
      if (!it->contains("file")) {
        p.add(ptr, "a texture entry object needs \"file\"");
        continue;
      }
      file = &(*it)["file"];
      ptr += "/file";
    }
    if (!file->is_string() || file->get<std::string>().empty()) {
      p.add(ptr, "expected a texture path, got " + file->dump());
      continue;
    }
    auto name = project_relative_name(file->get<std::string>());
    if (!name)
      p.add(ptr, name.error().message);
    else
      m.textures[it.key()] = *name;
  }
}

}  // namespace

Result<Material> parse_material(const std::string& file, std::string_view json_text) {
  auto doc = parse_json_document(file, json_text);
  if (!doc) return doc.error();
  Problems p{file, {}};
  Material m;
  m.file = file;
  const json& root = *doc;
  if (!root.is_object()) {
    p.add("", std::string("expected a JSON object, got ") + type_name(root));
    return p.error();
  }
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string& key = it.key();
    if (key == "shader") {
      if (!it->is_string() || it->get<std::string>().empty()) {
        p.add("/shader", "expected a shader name, got " + it->dump());
      } else if (auto name = project_relative_name(it->get<std::string>()); !name) {
        p.add("/shader", name.error().message);
      } else {
        m.shader = *name;
      }
    } else if (key == "keywords") {
      read_keywords(*it, m.keywords, p, "/keywords");
    } else if (key == "params") {
      read_params(*it, m, p);
    } else if (key == "textures") {
      read_textures(*it, m, p);
    } else if (key == "ship") {
      if (!it->is_array()) {
        p.add("/ship", std::string("expected an array of keyword arrays, got ") + type_name(*it));
        continue;
      }
      for (std::size_t i = 0; i < it->size(); ++i) {
        std::vector<std::string> set;
        read_keywords((*it)[i], set, p, "/ship/" + std::to_string(i));
        m.ship.push_back(std::move(set));
      }
    } else {
      p.add("/" + json_pointer_token(key), "unknown field (expected shader, keywords, params, textures, ship)");
    }
  }
  if (!root.contains("shader")) p.add("/shader", "missing (every material names its shader)");
  if (!p.lines.empty()) return p.error();
  return m;
}

Result<Material> load_material(const std::string& file) {
  auto text = read_input_file(file, limits::kJsonFileBytes, "material");
  if (!text) return text.error();
  return parse_material(file, *text);
}

Status check_material_keywords(const Material& material, const ShaderDeclaration& declaration) {
  Problems p{material.file, {}};
  auto check = [&](const std::vector<std::string>& keywords, const std::string& at) {
    for (std::size_t i = 0; i < keywords.size(); ++i) {
      const std::string& k = keywords[i];
      if (declaration.keywords.count(k)) continue;
      std::string legal;
      for (const auto& l : declaration.keywords) legal += (legal.empty() ? "" : " ") + l;
      p.add(at + "/" + std::to_string(i), "unknown keyword '" + k + "' for shader " + material.shader +
                                              " (legal keywords: " + (legal.empty() ? "(none)" : legal) + ")");
    }
    // A combination the shader declares invalid is never built: using it is an error.
    if (auto bad = invalid_combination(declaration, keywords)) {
      std::string names;
      for (const auto& k : *bad) names += (names.empty() ? "" : " ") + k;
      p.add(at, "shader " + material.shader + " declares the keywords " + names + " invalid together");
    }
  };
  check(material.keywords, "/keywords");
  for (std::size_t s = 0; s < material.ship.size(); ++s) check(material.ship[s], "/ship/" + std::to_string(s));
  if (!p.lines.empty()) return p.error();
  return {};
}

}  // namespace kiln::materials
