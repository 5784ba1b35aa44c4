#include "cook/cook_textures.h"

#include <algorithm>
#include <atomic>

namespace kiln::cook {

CookedTextures cook_textures(const std::filesystem::path& root, std::span<const project::TextureInput> sources,
                             TextureConversions& conversions, bool verify,
                             const std::vector<runtime::ShaderTarget>& targets, core::WorkerPool& pool,
                             Progress& progress, CookErrors& errors) {
  // One conversion of every texture per distinct size cap; the default target's is the set's own.
  std::vector<std::uint32_t> caps;
  for (const auto& t : targets)
    if (std::find(caps.begin(), caps.end(), t.max_size) == caps.end()) caps.push_back(t.max_size);
  if (caps.empty()) caps.push_back(0);
  const std::size_t count = sources.size(), total = count * caps.size();
  std::vector<Result<TextureConversions::Tx>> results(total, make_error("not converted"));
  std::atomic<std::size_t> done{0}, failed{0};
  pool.parallel_for(total, [&](std::size_t job) {
    const std::size_t i = job % count;
    textures::TextureSettings settings = sources[i].settings;
    settings.max_size = caps[job / count];
    results[job] = conversions.get(root / sources[i].file, settings, verify);
    failed += !results[job];
    progress.tick("textures", ++done, total);
  });
  if (total > 0) progress.done("textures", failed);

  CookedTextures out;
  for (std::size_t job = 0; job < total; ++job) {  // in the project's order: a deterministic pack and report
    if (!results[job]) {
      errors.add(results[job].error().message);
      continue;
    }
    out.converted += results[job]->converted;
    out.from_tx += !results[job]->artist_tx.empty();
  }
  const auto bytes_of = [&](std::size_t cap_index, std::size_t i) -> const std::vector<std::byte>* {
    const auto& r = results[cap_index * count + i];
    return r ? &r->bytes : nullptr;
  };
  for (std::size_t i = 0; i < count; ++i)
    if (const auto* bytes = bytes_of(0, i)) out.files.emplace_back(sources[i].file, *bytes);
  for (std::size_t t = 1; t < targets.size(); ++t) {
    const std::size_t cap_index = std::find(caps.begin(), caps.end(), targets[t].max_size) - caps.begin();
    if (cap_index == 0) continue;  // the default's textures serve it
    for (std::size_t i = 0; i < count; ++i)
      if (const auto* bytes = bytes_of(cap_index, i))
        out.target_files.push_back({targets[t].id(), sources[i].file, *bytes});
  }
  out.capped = caps.size() > 1 || caps.front() != 0;
  return out;
}

}  // namespace kiln::cook
