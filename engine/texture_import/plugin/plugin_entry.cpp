// The entry point of kiln-teximport.so, the OpenImageIO source reader as a plugin the tools load
// the first time they read an image format engine/textures does not decode itself.

#include <cstring>

#include "kiln/texture_import/texture_import.h"
#include "oiio_reader.h"

extern "C" __attribute__((visibility("default"))) kiln::textures::SourceReader kiln_teximport_reader_v1(
    const char* build_id) {
  // Another tree's plugin may lay out the Image and Result it hands over differently: refused.
  if (!build_id || std::strcmp(build_id, kiln::texture_import::importer_build_id()) != 0) return nullptr;
  return &kiln::texture_import::read_with_oiio;
}
