#include "kiln/texture_import/texture_import.h"

#include <atomic>
#include <mutex>
#include <string>

#include "kiln/core/program_files.h"
#include "kiln/core/runtime_library.h"

namespace kiln::texture_import {
namespace {

constexpr const char* kPluginName = "kiln-teximport.so";

// Opened once per process and never closed: OpenImageIO's threads and thread-local state run
// code in it until the process ends.
struct Importer {
  std::once_flag once;
  std::atomic<textures::SourceReader> reader{nullptr};
  std::string error;  // why it could not be opened; written once, under `once`
};

Importer& importer() {
  static Importer instance;
  return instance;
}

void open_importer(Importer& self) {
  const std::filesystem::path plugin = find_program_file(kPluginName);
  auto opened = Plugin::open(plugin, kPluginName, "image importer");
  auto found = opened ? opened->entry(kReaderEntrySymbol) : Result<void*>(opened.error());
  if (!found) {
    self.error = found.error().message;
    return;
  }
  auto entry = reinterpret_cast<ReaderEntryFunction>(*found);
  textures::SourceReader reader = entry(importer_build_id());
  if (!reader) {
    self.error = plugin.string() + ": an image importer built from another Kiln than this program";
    return;
  }
  self.reader.store(reader, std::memory_order_release);
}

}  // namespace

const char* importer_build_id() { return KILN_IMPORTER_BUILD_ID; }

Result<textures::Image> import_image(const std::filesystem::path& path) {
  Importer& self = importer();
  std::call_once(self.once, open_importer, std::ref(self));
  const textures::SourceReader reader = self.reader.load(std::memory_order_acquire);
  if (!reader) return make_error(path.string() + ": cannot read as an image: " + self.error);
  return reader(path);
}

void register_source_reader() { textures::set_source_reader(&import_image); }

}  // namespace kiln::texture_import
