#include "kiln/runtime/script_api.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace kiln::runtime {

std::string parameter_function_name(std::string_view material_file, std::string_view parameter) {
  std::string_view stem = material_file;
  if (stem.rfind("materials/", 0) == 0) stem.remove_prefix(10);
  if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".json") stem.remove_suffix(5);
  std::string name = std::string(stem) + "_" + std::string(parameter);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) name.insert(0, "_");
  return name;
}

std::vector<ParameterFunction> parameter_functions(std::span<const MaterialRecord> materials) {
  std::vector<const MaterialRecord*> records;
  records.reserve(materials.size());
  for (const auto& m : materials) records.push_back(&m);
  return parameter_functions(std::move(records));
}

std::vector<ParameterFunction> parameter_functions(std::vector<const MaterialRecord*> sorted) {
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->file < b->file; });
  std::map<std::string, ParameterFunction> by_name;
  for (const MaterialRecord* m : sorted)
    for (const auto& [parameter, values] : m->params) {
      ParameterFunction f{parameter_function_name(m->file, parameter), m->file, parameter, values.size()};
      by_name.emplace(f.name, std::move(f));
    }
  std::vector<ParameterFunction> out;
  for (auto& [name, f] : by_name) out.push_back(std::move(f));
  return out;
}

}  // namespace kiln::runtime
