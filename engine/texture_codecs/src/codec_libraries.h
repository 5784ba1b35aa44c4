#pragma once
// libsquish (BC1-BC5) and libastcenc (ASTC), loaded when a level is first encoded to or decoded
// from their formats. Linked, both, and the OpenMP runtime libsquish brings, would be mapped and
// relocated by every cook and editor start, though most cooks encode nothing.
//
// Thread-safety: the loaders may be called from any thread; each library loads once and its table
// never changes afterwards.

#include <astcenc.h>
#include <squish.h>

#include "kiln/core/result.h"

namespace kiln::texture_codecs {

// The functions Kiln uses, with the libraries' own signatures.
struct SquishLibrary {
  decltype(&squish::CompressMasked) compress_masked;  // squish::Compress is an inline over it
  decltype(&squish::Decompress) decompress;
};

struct AstcencLibrary {
  decltype(&::astcenc_config_init) config_init;
  decltype(&::astcenc_context_alloc) context_alloc;
  decltype(&::astcenc_context_free) context_free;
  decltype(&::astcenc_compress_image) compress_image;
  decltype(&::astcenc_compress_reset) compress_reset;
  decltype(&::astcenc_decompress_image) decompress_image;
  decltype(&::astcenc_get_error_string) get_error_string;
};

// The loaded library, or why it could not be loaded (not installed, a function missing).
Result<const SquishLibrary*> squish_library();
Result<const AstcencLibrary*> astcenc_library();

}  // namespace kiln::texture_codecs
