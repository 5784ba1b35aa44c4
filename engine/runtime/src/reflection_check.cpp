#include <algorithm>
#include <tuple>

#include "kiln/runtime/reflection.h"
#include "spirv_interface.h"

namespace kiln::runtime {
namespace {

// One descriptor binding as both sides describe it: what a layout is made from.
struct Described {
  std::uint32_t set = 0, binding = 0;
  DescriptorKind kind = DescriptorKind::kUniformBuffer;
  std::uint32_t count = 1;
  bool count_known = true;
  std::optional<std::uint64_t> block_size;
  auto key() const { return std::tie(set, binding, kind); }
};

std::string describe(const Described& d) {
  return "set " + std::to_string(d.set) + " binding " + std::to_string(d.binding) + " (" +
         std::string(descriptor_kind_name(d.kind)) +
         (d.count_known && d.count != 1 ? "[" + std::to_string(d.count) + "]" : "") +
         (d.block_size ? ", " + std::to_string(*d.block_size) + " bytes" : "") + ")";
}

std::string compare(const StageReflection& r, const SpirvInterface& spirv) {
  std::vector<Described> listed, declared;
  for (const ReflectedBinding& b : r.bindings) {
    Described d{b.set, b.binding, b.kind, b.count};
    if (b.block_size) d.block_size = *b.block_size;
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
  for (const PushConstantBlock& p : r.push_constants) push.push_back(p.size);
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
  for (const InterfaceVariable& in : r.inputs) inputs.emplace_back(in.location, in.type);
  std::sort(inputs.begin(), inputs.end());
  if (inputs.size() != spirv.inputs.size())
    return "inputs: " + std::to_string(inputs.size()) + " in the reflection, " + std::to_string(spirv.inputs.size()) +
           " in the SPIR-V";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto &ours = inputs[i], &theirs = spirv.inputs[i];
    if (ours.first != theirs.first)
      return "inputs: location " + std::to_string(ours.first) + " in the reflection, " + std::to_string(theirs.first) +
             " in the SPIR-V";
    if (ours.second != theirs.second)
      return "input at location " + std::to_string(ours.first) + ": " + ours.second + " in the reflection, " +
             theirs.second + " in the SPIR-V";
  }
  return {};
}

}  // namespace

Status check_reflection(const StageReflection& reflection, std::span<const std::uint32_t> words) {
  auto spirv = read_spirv_interface(words);
  if (!spirv) return spirv.error();
  if (!reflection.unavailable.empty()) {
    if (reflection == StageReflection{.unavailable = reflection.unavailable}) return {};
    return make_error("a reflection marked unavailable describes the stage all the same");
  }
  const std::string problem = compare(reflection, *spirv);
  if (problem.empty()) return {};
  return make_error("the reflection does not match the SPIR-V: " + problem);
}

}  // namespace kiln::runtime
