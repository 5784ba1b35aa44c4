#pragma once
// Decoders behind read_image(), one per source format.

#include <filesystem>

#include "kiln/textures/image.h"

namespace kiln::textures {

Result<Image> read_png(const std::filesystem::path& path);
Result<Image> read_tiff(const std::filesystem::path& path);

}  // namespace kiln::textures
