#include "codec_libraries.h"

#include "kiln/core/runtime_library.h"

namespace kiln::texture_codecs {

Result<const SquishLibrary*> squish_library() {
  static SquishLibrary table;
  static const Result<const SquishLibrary*> loaded = []() -> Result<const SquishLibrary*> {
    auto library = RuntimeLibrary::open("libsquish.so.0", "libsquish (to encode and decode BC1-BC5 textures)");
    if (!library) return library.error();
    // C++ functions: their names as the Itanium ABI spells them, which the soname keeps.
    library->bind(table.compress_masked, "_ZN6squish14CompressMaskedEPKhiPviPf");
    library->bind(table.decompress, "_ZN6squish10DecompressEPhPKvi");
    KILN_TRY(library->complete());
    return &table;
  }();
  return loaded;
}

Result<const AstcencLibrary*> astcenc_library() {
  static AstcencLibrary table;
  static const Result<const AstcencLibrary*> loaded = []() -> Result<const AstcencLibrary*> {
    auto library = RuntimeLibrary::open("libastcenc.so.3d", "libastcenc (to encode and decode ASTC textures)");
    if (!library) return library.error();
    library->bind(table.config_init, "astcenc_config_init");
    library->bind(table.context_alloc, "astcenc_context_alloc");
    library->bind(table.context_free, "astcenc_context_free");
    library->bind(table.compress_image, "astcenc_compress_image");
    library->bind(table.compress_reset, "astcenc_compress_reset");
    library->bind(table.decompress_image, "astcenc_decompress_image");
    library->bind(table.get_error_string, "astcenc_get_error_string");
    KILN_TRY(library->complete());
    return &table;
  }();
  return loaded;
}

}  // namespace kiln::texture_codecs
