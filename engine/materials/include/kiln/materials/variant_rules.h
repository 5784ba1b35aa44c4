#pragma once
// Which variants of a shader exist: the one place the cook, the editor and `kiln shader compile`
// ask. A variant is valid when its pass is declared, its keywords are legal, and it contains no
// combination a `#pragma kiln invalid` rules out. A cook builds
//   used      one variant per pass for every material (its keywords),
//   declared  one per pass for every keyword set a material's "ship" or a shader's
//             `#pragma kiln ship` names (`always`: whatever a usage record says),
// and strips a declared variant that is not valid (a used one that is not valid is an error of its
// material, reported by check_material_keywords).
//
// Thread-safety: plain values; a VariantPlan is owned by one thread.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/materials/shader_declaration.h"
#include "kiln/materials/variant_key.h"

namespace kiln::materials {

// The first `#pragma kiln invalid` set that `keywords` contains, if any.
std::optional<std::set<std::string>> invalid_combination(const ShaderDeclaration& declaration,
                                                         const std::vector<std::string>& keywords);

// check_variant_request(), and no invalid combination: the error names the rule.
Status check_variant_validity(const std::string& shader, const ShaderDeclaration& declaration, const std::string& pass,
                              const std::vector<std::string>& keywords);

struct PlannedVariant {
  VariantKey key;                      // revision 0
  bool used = false;                   // a material uses it (else only declared to ship)
  bool always = false;                 // `#pragma kiln ship ... always`: shipped whatever usage records say
  std::vector<std::string> materials;  // the materials that use it, in the order they were added
};

class VariantPlan {
 public:
  // The variants `material` (a project file) uses, one per pass; then the sets it asks to ship.
  void add_material(const std::string& material, const std::string& shader, const ShaderDeclaration& declaration,
                    const std::vector<std::string>& keywords, const std::vector<std::vector<std::string>>& ship);
  // The sets `shader` declares with `#pragma kiln ship`.
  void add_shader(const std::string& shader, const ShaderDeclaration& declaration);

  // The variants to build, sorted by name (deterministic), declared ones that are not valid
  // stripped; and the counts by why each is built.
  std::vector<PlannedVariant> variants() const;
  std::size_t used() const;
  std::size_t declared() const;
  std::size_t stripped() const;

 private:
  struct Entry {
    PlannedVariant variant;
    bool valid = true;
    bool checked = false;  // key and validity set (by add)
  };
  void add(const std::string& shader, const ShaderDeclaration& declaration, const std::string& pass,
           const std::vector<std::string>& keywords, const std::string* material);
  std::map<std::string, Entry> entries_;  // by VariantKey::name()
};

}  // namespace kiln::materials
