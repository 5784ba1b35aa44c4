#include "kiln/render/scene_source.h"

namespace kiln::render {

std::vector<std::string> CookedSetSource::materials() const { return set_.ids(runtime::EntryKind::kMaterial); }

Result<runtime::MaterialRecord> CookedSetSource::material(std::string_view file) const { return set_.material(file); }

Result<runtime::VariantRecord> CookedSetSource::variant(std::string_view name) const { return set_.variant(name); }

Result<std::span<const std::byte>> CookedSetSource::texture(std::string_view file) const { return set_.texture(file); }

std::string CookedSetSource::shaders_origin() const { return set_.pack(runtime::PackKind::kShaders).path().string(); }

std::string CookedSetSource::textures_origin() const { return set_.pack(runtime::PackKind::kTextures).path().string(); }

void MemorySceneSource::put_material(runtime::MaterialRecord record) {
  std::string file = record.file;
  materials_.insert_or_assign(std::move(file), std::move(record));
}

void MemorySceneSource::put_variant(std::string name, runtime::VariantRecord record) {
  variants_.insert_or_assign(std::move(name), std::move(record));
}

void MemorySceneSource::put_texture(std::string file, std::vector<std::byte> tx) {
  textures_.insert_or_assign(std::move(file), std::move(tx));
}

std::vector<std::string> MemorySceneSource::materials() const {
  std::vector<std::string> files;
  for (const auto& [file, record] : materials_) files.push_back(file);
  return files;
}

Result<runtime::MaterialRecord> MemorySceneSource::material(std::string_view file) const {
  if (auto it = materials_.find(file); it != materials_.end()) return it->second;
  return make_error(origin_ + ": no material " + std::string(file));
}

Result<runtime::VariantRecord> MemorySceneSource::variant(std::string_view name) const {
  if (auto it = variants_.find(name); it != variants_.end()) return it->second;
  return make_error(origin_ + ": no variant " + std::string(name));
}

Result<std::span<const std::byte>> MemorySceneSource::texture(std::string_view file) const {
  if (auto it = textures_.find(file); it != textures_.end()) return std::span<const std::byte>(it->second);
  return make_error(origin_ + ": no texture " + std::string(file));
}

}  // namespace kiln::render
