#pragma once
// The editor page's files (editor/page), built into the binary: each with the path it is served
// at and its content type.
//
// Thread-safety: constant data.

#include <span>
#include <string_view>

namespace kiln::editor {

struct PageAsset {
  std::string_view path;  // "/" for index.html
  std::string_view type;
  std::string_view bytes;
};

std::span<const PageAsset> page_assets();

}  // namespace kiln::editor
