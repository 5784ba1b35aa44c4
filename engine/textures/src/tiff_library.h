#pragma once
// libtiff, loaded when the first TIFF is opened or written. Linked in, it would be loaded with the
// codecs it needs (WebP, JPEG, LZMA, ZSTD, LERC, JBIG, deflate) by every Kiln process, and their
// binding costs milliseconds of start-up in processes that never touch a texture (script runs,
// shader-only work, tools).
//
// Thread-safety: tiff_library() may be called from any thread; it loads once and the table never
// changes afterwards.

#include <tiffio.h>

#include "kiln/core/result.h"

namespace kiln::textures {

// The functions Kiln uses, with libtiff's own signatures.
struct TiffLibrary {
  decltype(&::TIFFGetVersion) get_version;
  decltype(&::TIFFSetErrorHandler) set_error_handler;
  decltype(&::TIFFSetWarningHandler) set_warning_handler;
  decltype(&::TIFFOpen) open;
  decltype(&::TIFFClientOpen) client_open;
  decltype(&::TIFFClose) close;
  decltype(&::TIFFFlush) flush;
  decltype(&::TIFFFileno) fileno;
  decltype(&::TIFFGetField) get_field;
  decltype(&::TIFFGetFieldDefaulted) get_field_defaulted;
  decltype(&::TIFFSetField) set_field;
  decltype(&::TIFFIsTiled) is_tiled;
  decltype(&::TIFFIsByteSwapped) is_byte_swapped;
  decltype(&::TIFFNumberOfTiles) number_of_tiles;
  decltype(&::TIFFCurrentDirectory) current_directory;
  decltype(&::TIFFSetDirectory) set_directory;
  decltype(&::TIFFReadDirectory) read_directory;
  decltype(&::TIFFWriteDirectory) write_directory;
  decltype(&::TIFFReadTile) read_tile;
  decltype(&::TIFFWriteTile) write_tile;
  decltype(&::TIFFRGBAImageOK) rgba_image_ok;
  decltype(&::TIFFReadRGBAImageOriented) read_rgba_image_oriented;
};

// The loaded library, or why it could not be loaded (not installed, a function missing).
Result<const TiffLibrary*> tiff_library();

// The loaded library, for code that runs only after tiff_library() (or begin_tiff_call()) succeeded:
// every use follows the open of a TIFF.
const TiffLibrary& tiff();

}  // namespace kiln::textures
