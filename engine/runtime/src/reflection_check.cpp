#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "kiln/core/json_document.h"
#include "kiln/runtime/shader_interface.h"
#include "spirv_interface.h"

namespace kiln::runtime {
namespace {

using nlohmann::json;

// One descriptor binding as both sides describe it: what a layout is made from.
struct Described {
  std::uint32_t set = 0, binding = 0;
  std::string kind;
  std::uint32_t count = 1;
  bool count_known = true;
  std::optional<std::uint64_t> block_size;
  auto key() const { return std::tie(set, binding, kind); }
};

std::string describe(const Described& d) {
  return "set " + std::to_string(d.set) + " binding " + std::to_string(d.binding) + " (" + d.kind +
         (d.count_known && d.count != 1 ? "[" + std::to_string(d.count) + "]" : "") +
         (d.block_size ? ", " + std::to_string(*d.block_size) + " bytes" : "") + ")";
}

const json& array_field(const json& r, const char* name) {
  if (!r.contains(name) || !r.at(name).is_array())
    throw std::runtime_error(std::string("\"") + name + "\" is not a list");
  return r.at(name);
}

std::string compare(const json& r, const SpirvInterface& spirv) {
  std::vector<Described> listed, declared;
  for (const json& b : array_field(r, "bindings")) {
    Described d{json_u32_field(b, "set"), json_u32_field(b, "binding"), b.at("kind").get<std::string>()};
    d.count = b.contains("count") ? json_u32_field(b, "count") : 1u;
    if (b.contains("block_size")) d.block_size = json_u32_field(b, "block_size");
    listed.push_back(std::move(d));
  }
  for (const SpirvBinding& b : spirv.bindings)
    declared.push_back({b.set, b.binding, b.kind, b.count, b.count_known, b.block_size});
  auto by_key = [](const Described& a, const Described& b) { return a.key() < b.key(); };
  std::sort(listed.begin(), listed.end(), by_key);
  std::sort(declared.begin(), declared.end(), by_key);
  for (std::size_t i = 0; i < std::max(listed.size(), declared.size()); ++i) {
    if (i >= listed.size() || (i < declared.size() && by_key(declared[i], listed[i])))
      return describe(declared[i]) + " is declared by the SPIR-V but missing from the reflection";
    if (i >= declared.size() || by_key(listed[i], declared[i]))
      return describe(listed[i]) + " is in the reflection but the SPIR-V declares no such binding";
    const Described &l = listed[i], &d = declared[i];
    if ((d.count_known && l.count != d.count) || l.block_size != d.block_size)
      return describe(l) + " in the reflection, " + describe(d) + " in the SPIR-V";
  }
  std::vector<std::uint64_t> push;
  for (const json& p : array_field(r, "push_constants")) push.push_back(json_u32_field(p, "size"));
  std::vector<std::uint64_t> push_declared = spirv.push_constant_sizes;
  std::sort(push.begin(), push.end());
  std::sort(push_declared.begin(), push_declared.end());
  if (push != push_declared) {
    auto sizes = [](const std::vector<std::uint64_t>& v) {
      std::string out;
      for (auto s : v) out += (out.empty() ? "" : ", ") + std::to_string(s) + " bytes";
      return out.empty() ? std::string("none") : out;
    };
    return "push constants: " + sizes(push) + " in the reflection, " + sizes(push_declared) + " in the SPIR-V";
  }
  // A vertex input's type picks the format the pipeline reads it with: a wrong one draws garbage.
  std::vector<std::pair<std::uint32_t, std::string>> inputs;
  for (const json& in : array_field(r, "inputs"))
    inputs.emplace_back(json_u32_field(in, "location"), in.contains("type") && in["type"].is_string()
                                                            ? in["type"].get<std::string>()
                                                            : std::string("(no type)"));
  std::sort(inputs.begin(), inputs.end());
  if (inputs.size() != spirv.inputs.size())
    return "inputs: " + std::to_string(inputs.size()) + " in the reflection, " + std::to_string(spirv.inputs.size()) +
           " in the SPIR-V";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto &listed = inputs[i], &declared = spirv.inputs[i];
    if (listed.first != declared.first)
      return "inputs: location " + std::to_string(listed.first) + " in the reflection, " +
             std::to_string(declared.first) + " in the SPIR-V";
    if (listed.second != declared.second)
      return "input at location " + std::to_string(listed.first) + ": " + listed.second + " in the reflection, " +
             declared.second + " in the SPIR-V";
  }
  return {};
}

}  // namespace

Status check_stage_reflection(const StageRecord& stage, const std::string& where) {
  const std::string at = where + ": " + stage.stage + ": ";
  auto spirv = read_spirv_interface(stage.spirv);
  if (!spirv) return make_error(at + spirv.error().message);
  std::string problem;
  try {  // nlohmann::json reports missing or mistyped fields by exception
    const json r = json::parse(stage.reflection_json);
    if (!r.is_object()) return make_error(at + "the reflection is not an object");
    problem = compare(r, *spirv);
  } catch (const std::exception& e) {  // nlohmann's, json_u32's or array_field's
    problem = std::string("reflection is not what the cook writes (") + e.what() + ")";
  }
  if (problem.empty()) return {};
  return make_error(at + "the reflection does not match the SPIR-V: " + problem);
}

}  // namespace kiln::runtime
