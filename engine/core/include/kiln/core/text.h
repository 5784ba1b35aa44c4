#pragma once
// Small text helpers shared by modules.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

// The non-empty pieces of `text` between `separator`s: "a;;b;" -> {"a", "b"}.
std::vector<std::string> split_nonempty(std::string_view text, char separator);

// `text` with the credentials of a URL in it hidden: "redis://user:pw@host/0" -> "redis://***@host/0"
// (the user-info part ends at the last '@' before the path). Text that is not such a URL is
// returned as it is. For messages and printed settings.
std::string without_credentials(std::string_view text);

// For the name tables of enums (X-macro lists): where `name` stands in `names`, nothing when it is
// not there; and the names listed for a message, "spirv, glsl, hlsl".
std::optional<std::size_t> name_index(std::span<const std::string_view> names, std::string_view name);
std::string listed_names(std::span<const std::string_view> names);

// "1 error", "3 errors", "0 errors": a count with its noun agreeing (nouns that take an "s").
std::string count_of(std::size_t count, std::string_view noun);

// Lowercase hex of `bytes`, two digits each, in order.
std::string hex_bytes(std::span<const std::uint8_t> bytes);

// The candidate nearest to `name` by edit distance (the first of equals); empty when there are none.
// For "did you mean" in messages.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" for the candidate nearest to `name` when it is close (at most a third of
// its letters differ, and at least one is kept), else empty.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace kiln
