#include "editor/material_preview.h"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "kiln/runtime/pack_contents.h"

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
  scene_.reset();  // before the pipelines it draws with, and both before the device
  pipelines_.reset();
  context_.reset();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void MaterialPreviews::put(const runtime::MaterialRecord& record,
                           std::vector<std::pair<std::string, runtime::VariantRecord>> variants) {
  for (auto& [name, variant] : variants) source_.put_variant(std::move(name), std::move(variant));
  source_.put_material(record);
  stale_ = true;
}

void MaterialPreviews::erase(const std::string& material) {
  source_.erase_material(material);
  stale_ = true;
}

void MaterialPreviews::clear() {
  for (const std::string& material : source_.materials()) source_.erase_material(material);
  stale_ = true;
}

void MaterialPreviews::put_texture(const std::string& file, std::vector<std::byte> tx) {
  source_.put_texture(file, std::move(tx));
}

void MaterialPreviews::texture_changed(const std::string& file) {
  source_.erase_texture(file);
  if (scene_) scene_->forget_texture(file);
  stale_ = true;
}

Status MaterialPreviews::show() {
  KILN_TRY(pipelines_->update(source_));
  KILN_TRY(scene_->show(source_, *pipelines_));
  stale_ = false;
  return {};
}

Status MaterialPreviews::open_device() {
  if (context_ || !unavailable_.empty()) return {};
  bool none = false;
  auto context = render::VulkanContext::create({.device = device_, .validate = validate_}, &none);
  if (!context) {
    if (!none) return context.error();
    unavailable_ = context.error().message;
    return {};
  }
  auto scene = render::SceneRenderer::create(**context);
  if (!scene) return scene.error();
  context_ = std::move(*context);
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(context_->physical_device(), &properties);
  cpu_device_ = properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  pipelines_ = render::PipelineSet::create(*context_, VK_NULL_HANDLE, {.fast_link = true});
  scene_ = std::move(*scene);
  return {};
}

Result<fs::path> MaterialPreviews::render(const std::string& material) {
  KILN_TRY(open_device());
  if (!context_) return fs::path();  // no device: no picture, said by unavailable()
  const std::size_t seen = context_->validation_messages().size();
  while (stale_) {
    auto shown = show();
    if (shown) break;
    // What a material is now cannot be drawn: the materials the error names leave the source, so
    // that the others can be drawn; when it names none, or this one, this one leaves.
    bool named = false, left = false;
    for (const std::string& m : source_.materials())
      if (shown.error().message.find(m) != std::string::npos) {
        source_.erase_material(m);
        named = named || m == material;
        left = true;
      }
    if (named || !left) {
      source_.erase_material(material);
      return shown.error();
    }
  }
  auto picture = draw(material);
  KILN_TRY(render::check_validation(*context_, seen));
  if (picture && !picture->empty() && recorder_) record(material);  // drawn: not a post-process material
  return picture;
}

void MaterialPreviews::record_into(usage::UsageRecorder* recorder, std::string target) {
  recorder_ = recorder;
  target_ = std::move(target);
}

void MaterialPreviews::record(const std::string& material) {
  if (auto record = source_.material(material))
    for (const auto& pass : record->passes) recorder_->variant(runtime::variant_id(target_, pass.variant));
  for (const render::MaterialPipeline& p : pipelines_->pipelines())
    if (p.material == material && p.pipeline != VK_NULL_HANDLE) recorder_->pipeline(render::pipeline_use(p, target_));
}

Status MaterialPreviews::idle_step() {
  if (!has_idle_work()) return {};
  const std::size_t seen = context_->validation_messages().size();
  if (stale_) KILN_TRY(show());
  std::map<std::string, VkPipeline> before;
  for (const auto& p : pipelines_->pipelines()) before[p.material + "|" + p.pass] = p.pipeline;
  auto waiting = pipelines_->optimise(1);
  if (!waiting) return waiting.error();
  // Drawn once with the optimised pipeline: only the views whose pipeline changed.
  std::vector<std::string> changed;
  for (const auto& p : pipelines_->pipelines())
    if (before[p.material + "|" + p.pass] != p.pipeline) changed.push_back(p.material);
  KILN_TRY(scene_->render_views(changed, 0));
  return render::check_validation(*context_, seen);
}

Result<fs::path> MaterialPreviews::draw(const std::string& material) {
  KILN_TRY(scene_->render_views(std::span(&material, 1), 0));
  const auto& names = scene_->drawn();
  const auto view = std::find(names.begin(), names.end(), material);
  if (view == names.end()) return fs::path();  // nothing to draw (a post-process material)
  // A session's pictures: made again on the next edit, so written quickly and not flushed to
  // disk (still renamed into place whole).
  auto picture = render::write_view_picture(*scene_, std::size_t(view - names.begin()), dir_,
                                            {.fast = true, .durability = Durability::kRenamedOnly});
  if (!picture) return picture.error();
  return dir_ / *picture;
}

}  // namespace kiln::editor
