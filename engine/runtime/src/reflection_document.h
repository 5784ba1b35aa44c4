#pragma once
// decode_reflection's two readings. The full one: the whole text through nlohmann's parser, every error said at
// its JSON pointer. decode_reflection reads most text flat (flat_json.h) and comes here for the
// rest; the tests and the reflection fuzz target compare the two.

#include <optional>
#include <string>
#include <string_view>

#include "kiln/runtime/reflection.h"

namespace kiln::runtime {

Result<StageReflection> decode_reflection_document(std::string_view text, const std::string& where);

// The flat reading alone: nullopt where decode_reflection goes to the full one (declined or wrong).
std::optional<StageReflection> decode_reflection_flat(std::string_view text);

}  // namespace kiln::runtime
