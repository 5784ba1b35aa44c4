#pragma once
// A JSON document read into one flat array of nodes, for the decoders of text Kiln writes itself
// (a stage's stored reflection, read for every variant a cook copies or a player loads): one
// allocation per document instead of one per value, strings viewed in place. It reads a subset of
// JSON and declines the rest (nullopt): strings with escapes, control characters or bytes outside
// ASCII; numbers other than unsigned integers below 2^64; duplicate keys in one object; objects of
// more than kMaxMembers members (the duplicate check is quadratic); values more than kMaxDepth
// levels below the root. A caller reads declined text with a full parser, which also says what is
// wrong with it, so that declining changes no result and no message.
//
// Thread-safety: a value; the text it views must outlive it.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace kiln::runtime {

struct FlatNode {
  enum class Kind : std::uint8_t { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull };
  Kind kind = Kind::kNull;
  std::uint32_t end = 0;     // the index one past this node's subtree: its next sibling, if any
  std::string_view key;      // the member's name, inside an object
  std::string_view text;     // kString
  std::uint64_t number = 0;  // kNumber
};

class FlatDocument {
 public:
  static constexpr int kMaxDepth = 32;
  static constexpr std::size_t kMaxMembers = 64;
  static std::optional<FlatDocument> parse(std::string_view text);
  const std::vector<FlatNode>& nodes() const { return nodes_; }

 private:
  std::vector<FlatNode> nodes_;  // pre-order; nodes_[0] is the root
};

}  // namespace kiln::runtime
