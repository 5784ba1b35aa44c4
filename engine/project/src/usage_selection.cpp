#include "kiln/project/usage_selection.h"

#include <set>

#include "kiln/project/project_reader.h"
#include "kiln/runtime/pack_contents.h"
#include "kiln/runtime/script_api.h"

namespace kiln::project {
namespace {

// Materials whose engine functions a script calls.
std::set<std::string> called_by_scripts(const Project& project) {
  std::map<std::string, std::string> owner;  // function -> material
  for (const runtime::ParameterFunction& f : parameter_functions(project.materials)) owner[f.name] = f.material;
  std::set<std::string> out;
  for (const ScriptInput& script : project.scripts)
    for (const std::string& name : jit::called_host_functions(script.program))
      if (auto it = owner.find(name); it != owner.end()) out.insert(it->second);
  return out;
}

std::string listed(const std::vector<std::string>& names, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > shown) out += " and " + std::to_string(names.size() - shown) + " more";
  return out;
}

}  // namespace

UsageSelection select_by_usage(Project& project, const usage::UsageRecord& record, bool lenient) {
  UsageSelection out;
  std::set<std::string> recorded;
  for (const std::string& id : record.variants) {
    const auto split = runtime::split_variant_id(id);
    recorded.emplace(split ? split->second : std::string_view(id));
  }
  std::set<std::string> planned;
  for (const auto& v : project.variants) planned.insert(v.key.name());
  for (const std::string& name : recorded)
    if (!planned.count(name)) out.stale.push_back(name);

  // Which materials ship: used ones; every one unless lenient (then errors say what is missing).
  const std::set<std::string> scripted = called_by_scripts(project);
  std::set<std::string> kept;
  for (const MaterialInput& m : project.materials) {
    std::vector<std::string> unrecorded;
    bool used = scripted.count(m.record.file) > 0;
    for (const auto& pass : m.record.passes) {
      if (recorded.count(pass.variant))
        used = true;
      else
        unrecorded.push_back(pass.variant);
    }
    if (!lenient) {
      if (!unrecorded.empty())
        out.errors.push_back(m.record.file + ": " +
                             (unrecorded.size() == 1 ? "variant " : std::to_string(unrecorded.size()) + " variants ") +
                             listed(unrecorded, 3) +
                             " in no usage record (the material changed since the run was recorded, or no run drew "
                             "it): record again, or cook with --usage-lenient to leave out what no record uses");
      kept.insert(m.record.file);
    } else if (used) {
      kept.insert(m.record.file);
    }
  }
  if (!out.errors.empty()) return out;

  std::vector<materials::PlannedVariant> shipped;
  for (materials::PlannedVariant& v : project.variants) {
    const std::string name = v.key.name();
    std::vector<std::string> kept_users;
    for (const std::string& m : v.materials)
      if (kept.count(m)) kept_users.push_back(m);
    const bool is_recorded = recorded.count(name) > 0;
    if (is_recorded || v.always || !kept_users.empty()) {
      if (is_recorded)
        ++out.shipped_recorded;
      else if (!kept_users.empty())
        ++out.shipped_unrecorded;
      else
        ++out.shipped_always;
      v.materials = std::move(kept_users);
      v.used = !v.materials.empty();
      shipped.push_back(std::move(v));
      continue;
    }
    ++out.left_out_variants;
    for (const std::string& k : v.key.keyword_list()) ++out.left_out_keywords[k];
    if (v.materials.empty()) out.left_out_declared[v.key.shader].push_back(name);
    for (const std::string& m : v.materials) out.left_out_materials[m].push_back(name);
  }
  project.variants = std::move(shipped);
  std::erase_if(project.materials, [&](const MaterialInput& m) { return !kept.count(m.record.file); });
  project.used = project.declared = 0;
  for (const auto& v : project.variants) (v.used ? project.used : project.declared) += 1;
  return out;
}

}  // namespace kiln::project
