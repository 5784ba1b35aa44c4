#pragma once
// What a GLSL source may #include: the names of its include directives in order, found with
// comments blanked and continuation lines joined. A conservative scan — an include behind an
// #ifdef counts too — so it may find more than the preprocessor reads, never less. The content
// key of a variant covers every file these names lead to.
//
// Thread-safety: a pure function.

#include <string>
#include <string_view>
#include <vector>

namespace kiln::shadercache {

std::vector<std::string> scan_include_names(std::string_view source);

}  // namespace kiln::shadercache
