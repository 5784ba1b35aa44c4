#include "played_materials.h"

#include <fnmatch.h>

namespace kiln::player {

Result<PlayedMaterials> PlayedMaterials::choose(const runtime::CookedSet& set,
                                                const std::vector<std::string>& patterns) {
  PlayedMaterials played(set);
  const std::vector<std::string> all = played.all_.materials();
  if (patterns.empty()) {
    played.files_ = all;
    return played;
  }
  std::vector<bool> matched(patterns.size(), false);
  for (const std::string& file : all) {
    bool chosen = false;
    for (std::size_t i = 0; i < patterns.size(); ++i)
      if (::fnmatch(patterns[i].c_str(), file.c_str(), 0) == 0) chosen = matched[i] = true;
    if (chosen) played.files_.push_back(file);
  }
  for (std::size_t i = 0; i < patterns.size(); ++i)
    if (!matched[i])
      return make_error("--materials " + patterns[i] + ": matches no material of the set (" +
                        std::to_string(all.size()) + " materials, named like " +
                        (all.empty() ? std::string("none") : all.front()) + ")");
  return played;
}

}  // namespace kiln::player
