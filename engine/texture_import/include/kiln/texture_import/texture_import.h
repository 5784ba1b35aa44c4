#pragma once
// Source images through OpenImageIO's ImageInput, for the formats engine/textures does not decode
// itself: JPEG, TGA, EXR, HDR, PSD, BMP and the rest OpenImageIO reads. The first subimage, the
// first four channels, colour straight (alpha not premultiplied), rounded to 8 bits; the colour space
// the file declares (oiio:ColorSpace: sRGB, or linear for EXR and HDR) kept as declared_color_space.
// A file stored as floats (EXR, .hdr) also keeps its values whole in Image::hdr: the .tx writer
// makes a half-float .tx of them.
//
// OpenImageIO brings some 250 shared libraries (codecs, GDAL, ffmpeg...) whose loading costs a
// process about half a second, so the reader is a plugin, kiln-teximport.so (beside the program or
// in <prefix>/lib/kiln), opened the first time such a file is read: a tool run that reads none never
// maps OpenImageIO.
//
// Thread-safety: free functions; import_image() may run on several threads at once (the plugin is
// opened once).

#include <filesystem>

#include "kiln/core/result.h"
#include "kiln/textures/image.h"

namespace kiln::texture_import {

// Fails naming the file when the plugin is missing or cannot be loaded, or the file cannot be read.
Result<textures::Image> import_image(const std::filesystem::path& path);

// Makes textures::read_image() read every format above: call once at a tool's start-up.
void register_source_reader();

// The plugin's entry point (C linkage, so dlsym finds it by name): its reader, or null when the
// plugin was built from another tree than `build_id` (the Image and Result it hands over must be
// laid out alike).
using ReaderEntryFunction = textures::SourceReader (*)(const char* build_id);
inline constexpr const char* kReaderEntrySymbol = "kiln_teximport_reader_v1";

// The identity of the sources the plugin and its host must agree on.
const char* importer_build_id();

}  // namespace kiln::texture_import
