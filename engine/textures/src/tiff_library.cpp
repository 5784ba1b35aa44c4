#include "tiff_library.h"

#include <cassert>

#include "kiln/core/runtime_library.h"

namespace kiln::textures {
namespace {

// The soname of libtiff's ABI that the headers describe (libtiff 4.5 and later).
constexpr const char* kTiffSoname = "libtiff.so.6";

TiffLibrary g_library;

Result<const TiffLibrary*> load() {
  auto library = RuntimeLibrary::open(kTiffSoname, "libtiff");
  if (!library) return library.error();
  TiffLibrary& l = g_library;
  library->bind(l.get_version, "TIFFGetVersion");
  library->bind(l.set_error_handler, "TIFFSetErrorHandler");
  library->bind(l.set_warning_handler, "TIFFSetWarningHandler");
  library->bind(l.open, "TIFFOpen");
  library->bind(l.client_open, "TIFFClientOpen");
  library->bind(l.close, "TIFFClose");
  library->bind(l.flush, "TIFFFlush");
  library->bind(l.fileno, "TIFFFileno");
  library->bind(l.get_field, "TIFFGetField");
  library->bind(l.get_field_defaulted, "TIFFGetFieldDefaulted");
  library->bind(l.set_field, "TIFFSetField");
  library->bind(l.is_tiled, "TIFFIsTiled");
  library->bind(l.is_byte_swapped, "TIFFIsByteSwapped");
  library->bind(l.number_of_tiles, "TIFFNumberOfTiles");
  library->bind(l.current_directory, "TIFFCurrentDirectory");
  library->bind(l.set_directory, "TIFFSetDirectory");
  library->bind(l.read_directory, "TIFFReadDirectory");
  library->bind(l.write_directory, "TIFFWriteDirectory");
  library->bind(l.read_tile, "TIFFReadTile");
  library->bind(l.write_tile, "TIFFWriteTile");
  library->bind(l.rgba_image_ok, "TIFFRGBAImageOK");
  library->bind(l.read_rgba_image_oriented, "TIFFReadRGBAImageOriented");
  if (Status complete = library->complete(); !complete) return complete.error();
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
