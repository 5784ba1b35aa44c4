#pragma once
// The editor's material previews, drawn the way `kiln cook --previews` draws them (the player's
// renderer, the material laid out against its current variants, its textures) from records kept
// in memory: nothing is written but the pictures, <dir>/materials/<name>.png. The renderer stays
// warm for the session: the Vulkan device (opened at the first preview), the shader modules and
// pipelines of variants that did not change, the sphere, the stand-ins and the uploaded textures.
// With render.validate, any message of the validation layer during a preview fails that preview.
//
// Thread-safety: owned by one thread (the editor's preview worker).

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/scene_renderer.h"
#include "kiln/render/scene_source.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/variant_record.h"
#include "kiln/usage/usage_recorder.h"

namespace kiln::editor {

class MaterialPreviews {
 public:
  // Previews in a private directory of their own (under the temp directory), removed with them:
  // they are a session's pictures, not a cache. `validate`: the Vulkan validation layer on; a
  // preview during which it prints fails.
  static Result<std::unique_ptr<MaterialPreviews>> create(std::string render_device, bool validate);
  ~MaterialPreviews();
  MaterialPreviews(const MaterialPreviews&) = delete;
  MaterialPreviews& operator=(const MaterialPreviews&) = delete;

  // A material as it is now: its record (laid out as the cook lays it out) and the records of the
  // variants its passes name.
  void put(const runtime::MaterialRecord& record, std::vector<std::pair<std::string, runtime::VariantRecord>> variants);
  void erase(const std::string& material);
  void clear();  // every material let go (the project is read again)
  // A texture's .tx bytes, as the records name it; texture_changed drops them and their upload.
  bool has_texture(const std::string& file) const { return source_.has_texture(file); }
  void put_texture(const std::string& file, std::vector<std::byte> tx);
  void texture_changed(const std::string& file);

  // The picture of `material` as the source holds it now: its path, empty when there is no Vulkan
  // device (unavailable() says why) or nothing to draw (a post-process material), or the error.
  // The scene is shown again first when the source changed since it was last shown.
  Result<std::filesystem::path> render(const std::string& material);
  const std::string& unavailable() const { return unavailable_; }
  // Pipelines are linked fast from parts where the device can (VK_EXT_graphics_pipeline_library);
  // idle_step() links one of them again optimised and draws with it once, so that a driver that
  // compiles at the first draw has done so before the next edit. For when no event waits.
  // Not on a CPU device (lavapipe): it compiles at the first draw whatever the link, and an
  // optimised link only makes that compile slower, stalling the next edit's picture.
  bool has_idle_work() const { return pipelines_ && !cpu_device_ && pipelines_->waiting_optimisation() > 0; }
  Status idle_step();
  // The validation layer is on for the previews rendered so far.
  bool validating() const { return context_ && context_->validating(); }
  const std::filesystem::path& dir() const { return dir_; }  // where the pictures go
  // Each material drawn from now on is recorded (its variants of `target`, its pipelines with their
  // state) into `recorder`, which must outlive the previews.
  void record_into(usage::UsageRecorder* recorder, std::string target);

 private:
  MaterialPreviews(std::filesystem::path dir, std::string render_device, bool validate);
  Status open_device();  // at the first preview; a missing device is unavailable_, not an error
  // The pipelines updated from the source and the scene shown again; on an error nothing is shown.
  Status show();
  Result<std::filesystem::path> draw(const std::string& material);  // drawn and written
  void record(const std::string& material);                         // into recorder_

  std::filesystem::path dir_;
  std::string device_;
  bool validate_ = false;
  render::MemorySceneSource source_{"editor"};
  std::unique_ptr<render::VulkanContext> context_;
  std::unique_ptr<render::PipelineSet> pipelines_;
  std::unique_ptr<render::SceneRenderer> scene_;
  std::string unavailable_;
  bool cpu_device_ = false;
  usage::UsageRecorder* recorder_ = nullptr;
  std::string target_;
  // The source changed since the scene was last shown: the scene is shown again before it is drawn.
  bool stale_ = false;
};

}  // namespace kiln::editor
