#pragma once
// Material assets: JSON files naming a shader, its enabled keywords, parameter values and texture
// references.
//
//   {
//     "shader": "shaders/lit",
//     "keywords": ["FOG", "NORMALMAP"],
//     "params": {"roughness": 0.5, "base_color": [1.0, 0.5, 0.2, 1.0]},
//     "textures": {"albedo": "textures/brick.png",
//                  "normal": {"file": "textures/brick_n.png", "wrap": "clamp"}}
//   }
//
// A texture entry is a path or an object with "file" and the settings of texture_settings.h.
//
// Loading checks everything it can alone and reports every problem, one per line, as
// `file: /json/pointer: problem`; check_material_keywords() then checks the keywords against the
// shader's declaration.
//
// Thread-safety: plain values and pure functions.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/materials/shader_declaration.h"
#include "kiln/textures/texture_settings.h"

namespace kiln::materials {

struct Material {
  std::string file;
  std::string shader;
  std::vector<std::string> keywords;                  // as written; VariantKey makes them canonical
  std::map<std::string, std::vector<double>> params;  // a scalar is a vector of one
  std::map<std::string, std::string> textures;        // slot -> file
  // slot -> the settings an object entry names ({"file": ..., "color_space": "linear", ...})
  std::map<std::string, textures::TextureOptions> texture_options;
  std::vector<std::vector<std::string>> ship;  // "ship": more keyword sets of its shader to cook
};

Result<Material> parse_material(const std::string& file, std::string_view json_text);
Result<Material> load_material(const std::string& file);

// Every keyword of `material` legal for `declaration`; errors point at /keywords/<i>.
Status check_material_keywords(const Material& material, const ShaderDeclaration& declaration);

}  // namespace kiln::materials
