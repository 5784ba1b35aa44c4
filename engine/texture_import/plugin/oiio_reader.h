#pragma once
// The image reader inside kiln-teximport.so: OpenImageIO's ImageInput, as kiln/texture_import/
// texture_import.h describes. Safe to call from several threads at once.

#include <filesystem>

#include "kiln/core/result.h"
#include "kiln/textures/image.h"

namespace kiln::texture_import {

Result<textures::Image> read_with_oiio(const std::filesystem::path& path);

}  // namespace kiln::texture_import
