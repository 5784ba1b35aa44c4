#pragma once
// The editor's material previews, made the way `kiln cook --previews` makes them: the material laid
// out against its current variants, written with those variants and its textures as a cooked set
// of one material, rendered by the player's renderer (the first frame) into
// <dir>/materials/<name>.png. The Vulkan device is opened at the first preview and kept. With
// render.validate, any message of the validation layer during a preview fails that preview.
//
// Thread-safety: owned by the editor's session thread.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/materials/material.h"
#include "kiln/runtime/material_record.h"
#include "kiln/materials/variant_key.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/runtime/variant_record.h"

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

  // The picture of the material `record` (laid out against `variants` as the cook lays it out);
  // empty when there is no Vulkan device (unavailable() says why). `textures`: the .tx bytes of
  // every texture it names.
  Result<std::filesystem::path> render(
      const runtime::MaterialRecord& record,
      const std::vector<std::pair<materials::VariantKey, runtime::VariantRecord>>& variants,
      const std::map<std::string, std::vector<std::byte>>& textures);
  const std::string& unavailable() const { return unavailable_; }
  // The validation layer is on for the previews rendered so far.
  bool validating() const { return context_ && context_->validating(); }
  const std::filesystem::path& dir() const { return dir_; }  // where the pictures go

 private:
  MaterialPreviews(std::filesystem::path dir, std::string render_device, bool validate);

  std::filesystem::path dir_;
  std::string device_;
  bool validate_ = false;
  std::unique_ptr<render::VulkanContext> context_;
  std::string unavailable_;
};

}  // namespace kiln::editor
