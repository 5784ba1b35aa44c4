#include "editor/material_preview.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>

#include "kiln/render/pipeline_set.h"
#include "kiln/render/scene_renderer.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/runtime/cooked_set_writer.h"
#include "kiln/textures/image.h"

namespace kiln::editor {
namespace fs = std::filesystem;

MaterialPreviews::MaterialPreviews(fs::path dir, std::string render_device, bool validate)
    : dir_(std::move(dir)), device_(std::move(render_device)), validate_(validate) {}

Result<std::unique_ptr<MaterialPreviews>> MaterialPreviews::create(std::string render_device, bool validate) {
  std::error_code ec;
  std::string pattern = (fs::temp_directory_path(ec) / "kiln-previews-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)  // 0700: this user's pictures
    return make_error("cannot make a directory for previews (" + pattern + "): " + std::strerror(errno));
  return std::unique_ptr<MaterialPreviews>(new MaterialPreviews(pattern, std::move(render_device), validate));
}

MaterialPreviews::~MaterialPreviews() {
  context_.reset();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

Result<fs::path> MaterialPreviews::render(
    const runtime::MaterialRecord& record,
    const std::vector<std::pair<materials::VariantKey, runtime::VariantRecord>>& variants,
    const std::map<std::string, std::vector<std::byte>>& textures) {
  if (!context_ && unavailable_.empty()) {
    bool none = false;
    auto context = render::VulkanContext::create({.device = device_, .validate = validate_}, &none);
    if (!context) {
      if (!none) return context.error();
      unavailable_ = context.error().message;
    } else {
      context_ = std::move(*context);
    }
  }
  if (!context_) return fs::path();
  const std::size_t seen = context_->validation_messages().size();

  // One material's set, written and read back the way the player reads one.
  runtime::CookedSetWriter writer({{{"spirv", "editor-preview"}}}, {"editor-preview", ""});
  for (const auto& [key, variant] : variants) writer.add_variant("spirv", key.name(), variant);
  writer.add_material(record);
  for (const auto& [file, bytes] : textures) writer.add_texture(file, bytes);
  const fs::path set_dir = dir_ / "set";
  KILN_TRY(writer.commit(set_dir));
  auto set = runtime::CookedSet::open(set_dir);
  if (!set) return set.error();
  auto pipelines = render::PipelineSet::build(*context_, **set, VK_NULL_HANDLE);
  if (!pipelines) return pipelines.error();
  auto scene = render::SceneRenderer::create(*context_, **set, **pipelines);
  if (!scene) return scene.error();
  KILN_TRY((*scene)->render_frame(0));
  KILN_TRY(render::check_validation(*context_, seen));
  if ((*scene)->drawn().empty()) return fs::path();  // nothing to draw (a post-process material)
  auto picture = render::write_view_picture(**scene, 0, dir_);
  if (!picture) return picture.error();
  return dir_ / *picture;
}

}  // namespace kiln::editor
