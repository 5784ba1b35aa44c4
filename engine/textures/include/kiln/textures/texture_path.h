#pragma once
// Which file to read for a texture an asset names. A source image `foo.png` is read from `foo.tx`
// (or `foo.png.tx`) in the same folder when that file exists and is not older than the source:
// maketx -u stamps the .tx with the source's time, so "not older", not "strictly newer".
// Without a current .tx, the source itself is read (as a plain image).

#include <filesystem>

namespace kiln::textures {

struct TexturePath {
  std::filesystem::path file;  // what to open
  bool tiled = false;          // a .tx (tiled, mip-mapped) rather than the plain source
};

TexturePath resolve_texture_path(const std::filesystem::path& source);

}  // namespace kiln::textures
