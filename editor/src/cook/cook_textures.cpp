#include "cook/cook_textures.h"

#include <atomic>

namespace kiln::cook {

CookedTextures cook_textures(const Project& project, TextureConversions& conversions, bool verify,
                             core::WorkerPool& pool, Progress& progress, CookErrors& errors) {
  const std::size_t count = project.textures.size();
  std::vector<Result<TextureConversions::Tx>> results(count, make_error("not converted"));
  std::atomic<std::size_t> done{0}, failed{0};
  pool.parallel_for(count, [&](std::size_t i) {
    results[i] = conversions.get(project.root / project.textures[i], project.texture_settings[i], verify);
    failed += !results[i];
    progress.tick("textures", ++done, count);
  });
  if (count > 0) progress.done("textures", failed);
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
