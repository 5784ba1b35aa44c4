#include "kiln/materials/variant_rules.h"

#include <algorithm>

namespace kiln::materials {

std::optional<std::set<std::string>> invalid_combination(const ShaderDeclaration& declaration,
                                                         const std::vector<std::string>& keywords) {
  const std::set<std::string> set(keywords.begin(), keywords.end());
  for (const auto& bad : declaration.invalid)
    if (std::includes(set.begin(), set.end(), bad.begin(), bad.end())) return bad;
  return std::nullopt;
}

Status check_variant_validity(const std::string& shader, const ShaderDeclaration& declaration, const std::string& pass,
                              const std::vector<std::string>& keywords) {
  KILN_TRY(check_variant_request(shader, declaration, pass, keywords));
  if (auto bad = invalid_combination(declaration, keywords)) {
    std::string names;
    for (const auto& k : *bad) names += (names.empty() ? "" : " ") + k;
    return make_error("shader " + shader + " declares the keywords " + names +
                      " invalid together (#pragma kiln invalid " + names + ")");
  }
  return {};
}

void VariantPlan::add(const std::string& shader, const ShaderDeclaration& declaration, const std::string& pass,
                      const std::vector<std::string>& keywords, const std::string* material) {
  const VariantKey key = VariantKey::create(shader, pass, keywords, 0);
  Entry& e = entries_[key.name()];
  if (!e.checked) {  // the name is the key: a second add of it would find the same validity
    e.variant.key = key;
    e.valid = bool(check_variant_validity(shader, declaration, pass, keywords));
    e.checked = true;
  }
  if (material) {
    e.variant.used = true;
    e.variant.materials.push_back(*material);
  }
}

void VariantPlan::add_material(const std::string& material, const std::string& shader,
                               const ShaderDeclaration& declaration, const std::vector<std::string>& keywords,
                               const std::vector<std::vector<std::string>>& ship) {
  for (const std::string& pass : declaration.passes) add(shader, declaration, pass, keywords, &material);
  for (const auto& set : ship)
    for (const std::string& pass : declaration.passes) add(shader, declaration, pass, set, nullptr);
}

void VariantPlan::add_shader(const std::string& shader, const ShaderDeclaration& declaration) {
  for (const auto& set : declaration.ship)
    for (const std::string& pass : declaration.passes)
      add(shader, declaration, pass, std::vector<std::string>(set.begin(), set.end()), nullptr);
  for (const auto& set : declaration.ship_always)
    for (const std::string& pass : declaration.passes)
      entries_[VariantKey::create(shader, pass, std::vector<std::string>(set.begin(), set.end()), 0).name()]
          .variant.always = true;
}

std::vector<PlannedVariant> VariantPlan::variants() const {
  std::vector<PlannedVariant> out;
  for (const auto& [name, e] : entries_)
    if (e.variant.used || e.valid) out.push_back(e.variant);
  return out;
}

std::size_t VariantPlan::used() const {
  return std::count_if(entries_.begin(), entries_.end(), [](const auto& e) { return e.second.variant.used; });
}

std::size_t VariantPlan::declared() const {
  return std::count_if(entries_.begin(), entries_.end(),
                       [](const auto& e) { return !e.second.variant.used && e.second.valid; });
}

std::size_t VariantPlan::stripped() const {
  return std::count_if(entries_.begin(), entries_.end(),
                       [](const auto& e) { return !e.second.variant.used && !e.second.valid; });
}

}  // namespace kiln::materials
