#pragma once
// What a scene is drawn from: materials, the variants their passes name and the textures they
// bind. A cooked set is one (CookedSetSource: what the player and `kiln cook --previews` draw). An
// editor or an engine that makes materials at run time keeps one in memory (MemorySceneSource),
// so that its pictures are drawn the way a cooked set's are, with nothing written to disk.
//
// Thread-safety: read by the thread that draws. CookedSetSource is immutable; MemorySceneSource is
// changed and read by one thread.

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/variant_record.h"

namespace kiln::render {

class SceneSource {
 public:
  virtual ~SceneSource() = default;
  virtual std::vector<std::string> materials() const = 0;  // project files, sorted
  virtual Result<runtime::MaterialRecord> material(std::string_view file) const = 0;
  virtual Result<runtime::VariantRecord> variant(std::string_view name) const = 0;
  // A texture's .tx bytes, valid until the source changes.
  virtual Result<std::span<const std::byte>> texture(std::string_view file) const = 0;
  // How messages name where variants and textures come from: a pack's path.
  virtual std::string shaders_origin() const = 0;
  virtual std::string textures_origin() const = 0;
};

// A cooked set's default target, as the player reads it.
class CookedSetSource final : public SceneSource {
 public:
  explicit CookedSetSource(const runtime::CookedSet& set) : set_(set) {}
  std::vector<std::string> materials() const override;
  Result<runtime::MaterialRecord> material(std::string_view file) const override;
  Result<runtime::VariantRecord> variant(std::string_view name) const override;
  Result<std::span<const std::byte>> texture(std::string_view file) const override;
  std::string shaders_origin() const override;
  std::string textures_origin() const override;

 private:
  const runtime::CookedSet& set_;
};

// Records put in memory; `origin` names them in messages ("editor").
class MemorySceneSource final : public SceneSource {
 public:
  explicit MemorySceneSource(std::string origin) : origin_(std::move(origin)) {}
  void put_material(runtime::MaterialRecord record);
  void put_variant(std::string name, runtime::VariantRecord record);
  void put_texture(std::string file, std::vector<std::byte> tx);
  void erase_material(const std::string& file) { materials_.erase(file); }
  void erase_texture(const std::string& file) { textures_.erase(file); }
  bool has_texture(const std::string& file) const { return textures_.count(file) > 0; }

  std::vector<std::string> materials() const override;
  Result<runtime::MaterialRecord> material(std::string_view file) const override;
  Result<runtime::VariantRecord> variant(std::string_view name) const override;
  Result<std::span<const std::byte>> texture(std::string_view file) const override;
  std::string shaders_origin() const override { return origin_; }
  std::string textures_origin() const override { return origin_; }

 private:
  std::string origin_;
  std::map<std::string, runtime::MaterialRecord, std::less<>> materials_;
  std::map<std::string, runtime::VariantRecord, std::less<>> variants_;
  std::map<std::string, std::vector<std::byte>, std::less<>> textures_;
};

}  // namespace kiln::render
