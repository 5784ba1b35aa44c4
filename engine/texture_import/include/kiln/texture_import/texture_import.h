#pragma once
// Source images through OpenImageIO's ImageInput, for the formats engine/textures does not decode
// itself: JPEG, TGA, EXR, HDR, PSD, BMP and the rest OpenImageIO reads. The first subimage, the
// first four channels, colour straight (alpha not premultiplied), rounded to 8 bits; the colour space
// the file declares (oiio:ColorSpace: sRGB, or linear for EXR and HDR) kept as declared_color_space.
// High-dynamic-range values are clamped to [0, 1] (an 8-bit .tx cannot hold more).
//
// Thread-safety: free functions; import_image() may run on several threads at once.

#include <filesystem>

#include "kiln/core/result.h"
#include "kiln/textures/image.h"

namespace kiln::texture_import {

Result<textures::Image> import_image(const std::filesystem::path& path);

// Makes textures::read_image() read every format above: call once at a tool's start-up.
void register_source_reader();

}  // namespace kiln::texture_import
