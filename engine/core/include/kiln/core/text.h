#pragma once
// Small text helpers shared by modules.

#include <string>
#include <string_view>
#include <vector>

namespace kiln {

// The non-empty pieces of `text` between `separator`s: "a;;b;" -> {"a", "b"}.
std::vector<std::string> split_nonempty(std::string_view text, char separator);

}  // namespace kiln
