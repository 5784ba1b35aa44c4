#include "cook/cook_previews.h"

#include <cstdio>
#include <set>

#include "kiln/render/pipeline_cache.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/scene_renderer.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/textures/image.h"

namespace kiln::cook {
namespace fs = std::filesystem;

Status write_previews(const fs::path& out, const Config& config, cache::BlobStore* store, PreviewsReport& report) {
  bool unavailable = false;
  auto context =
      render::VulkanContext::create({.device = config.render_device, .validate = config.render_validate}, &unavailable);
  if (!context) {
    if (!unavailable) return context.error();
    std::fprintf(stderr, "cook: previews skipped: %s\n", context.error().message.c_str());
    report.skipped = context.error().message;
    return {};
  }
  auto set = runtime::CookedSet::open(out);
  if (!set) return set.error();
  auto cache = render::PersistentPipelineCache::open(**context, config.render_pipeline_cache ? store : nullptr);
  if (!cache) return cache.error();
  const render::CookedSetSource source(**set);
  auto pipelines = render::PipelineSet::build(**context, source, (*cache)->handle());
  if (!pipelines) return pipelines.error();
  if (auto saved = (*cache)->save(); !saved)
    std::fprintf(stderr, "cook: pipeline cache not saved: %s\n", saved.error().message.c_str());
  auto scene = render::SceneRenderer::create(**context, source, **pipelines);
  if (!scene) return scene.error();
  KILN_TRY((*scene)->render_frame(0));
  KILN_TRY(render::check_validation(**context));

  const fs::path dir = out / "previews";
  std::set<fs::path> written;
  std::vector<std::string> files;
  for (std::size_t i = 0; i < (*scene)->drawn().size(); ++i) {
    auto picture = render::write_view_picture(**scene, i, dir);
    if (!picture) return picture.error();
    written.insert((dir / *picture).lexically_normal());
    files.push_back(("previews" / *picture).generic_string());
  }
  // Pictures of materials the set no longer has would show what is not there.
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && it->path().extension() == ".png" && !written.count(it->path().lexically_normal()))
      fs::remove(it->path(), ec);
  report.files = std::move(files);
  report.device = (*context)->identity().name;
  report.validated = (*context)->validating();
  return {};
}

}  // namespace kiln::cook
