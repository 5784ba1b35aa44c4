#include "tiff_library.h"

#include <dlfcn.h>

#include <cassert>
#include <string>
#include <type_traits>

namespace kiln::textures {
namespace {

// The soname of libtiff's ABI that the headers describe (libtiff 4.5 and later).
constexpr const char* kTiffSoname = "libtiff.so.6";

TiffLibrary g_library;

Result<const TiffLibrary*> load() {
  // Never closed: open TIFFs and handlers into it live as long as the process.
  void* handle = ::dlopen(kTiffSoname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return make_error(std::string("cannot load libtiff: ") + ::dlerror());
  std::string missing;
  auto bind = [&](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(::dlsym(handle, name));
    if (!function) missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  TiffLibrary& l = g_library;
  bind(l.get_version, "TIFFGetVersion");
  bind(l.set_error_handler, "TIFFSetErrorHandler");
  bind(l.set_warning_handler, "TIFFSetWarningHandler");
  bind(l.open, "TIFFOpen");
  bind(l.client_open, "TIFFClientOpen");
  bind(l.close, "TIFFClose");
  bind(l.flush, "TIFFFlush");
  bind(l.fileno, "TIFFFileno");
  bind(l.get_field, "TIFFGetField");
  bind(l.get_field_defaulted, "TIFFGetFieldDefaulted");
  bind(l.set_field, "TIFFSetField");
  bind(l.is_tiled, "TIFFIsTiled");
  bind(l.is_byte_swapped, "TIFFIsByteSwapped");
  bind(l.number_of_tiles, "TIFFNumberOfTiles");
  bind(l.current_directory, "TIFFCurrentDirectory");
  bind(l.set_directory, "TIFFSetDirectory");
  bind(l.read_directory, "TIFFReadDirectory");
  bind(l.write_directory, "TIFFWriteDirectory");
  bind(l.read_tile, "TIFFReadTile");
  bind(l.write_tile, "TIFFWriteTile");
  bind(l.rgba_image_ok, "TIFFRGBAImageOK");
  bind(l.read_rgba_image_oriented, "TIFFReadRGBAImageOriented");
  if (!missing.empty()) return make_error(std::string(kTiffSoname) + " lacks " + missing);
  return &g_library;
}

}  // namespace

Result<const TiffLibrary*> tiff_library() {
  static const Result<const TiffLibrary*> loaded = load();
  return loaded;
}

const TiffLibrary& tiff() {
  assert(tiff_library().ok());
  return g_library;
}

}  // namespace kiln::textures
