#include "cook/cook_textures.h"

namespace kiln::cook {

CookedTextures cook_textures(const Project& project, TextureConversions& conversions, bool verify,
                             core::WorkerPool& pool, CookErrors& errors) {
  std::vector<Result<TextureConversions::Tx>> results(project.textures.size(), make_error("not converted"));
  pool.parallel_for(project.textures.size(), [&](std::size_t i) {
    results[i] = conversions.get(project.root / project.textures[i], project.texture_settings[i], verify);
  });
  CookedTextures out;
  for (std::size_t i = 0; i < results.size(); ++i) {  // in the project's order: a deterministic pack and report
    if (!results[i]) {
      errors.add(results[i].error().message);
      continue;
    }
    out.converted += results[i]->converted;
    out.from_tx += !results[i]->artist_tx.empty();
    out.files.emplace_back(project.textures[i], std::move(results[i]->bytes));
  }
  return out;
}

}  // namespace kiln::cook
