#include "flat_json.h"

namespace kiln::runtime {
namespace {

class FlatParser {
 public:
  FlatParser(std::string_view text, std::vector<FlatNode>& nodes) : text_(text), nodes_(nodes) {}

  bool document() {
    if (!value(0, {})) return false;
    skip_space();
    return pos_ == text_.size();
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  // A string without escapes, of printable ASCII: what the full parser would read byte for byte.
  bool string(std::string_view& out) {
    if (!eat('"')) return false;
    const std::size_t start = pos_;
    for (; pos_ < text_.size(); ++pos_) {
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        out = text_.substr(start, pos_ - start);
        ++pos_;
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
    }
    return false;
  }
  // 0 or a digit 1-9 and digits, not followed by a fraction or an exponent, below 2^64.
  bool number(std::uint64_t& out) {
    const std::size_t start = pos_;
    out = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      const std::uint64_t digit = std::uint64_t(text_[pos_] - '0');
      if (out > (UINT64_MAX - digit) / 10) return false;
      out = out * 10 + digit;
      ++pos_;
    }
    const std::size_t digits = pos_ - start;
    if (digits == 0 || (digits > 1 && text_[start] == '0')) return false;
    return pos_ == text_.size() || (text_[pos_] != '.' && text_[pos_] != 'e' && text_[pos_] != 'E');
  }

  bool value(int depth, std::string_view key) {
    if (depth > FlatDocument::kMaxDepth) return false;
    skip_space();
    if (pos_ >= text_.size()) return false;
    const std::size_t index = nodes_.size();
    nodes_.push_back({});
    nodes_[index].key = key;
    const char c = text_[pos_];
    bool ok = false;
    if (c == '{') {
      nodes_[index].kind = FlatNode::Kind::kObject;
      ok = object(index, depth);
    } else if (c == '[') {
      nodes_[index].kind = FlatNode::Kind::kArray;
      ok = array(depth);
    } else if (c == '"') {
      nodes_[index].kind = FlatNode::Kind::kString;
      ok = string(nodes_[index].text);
    } else if (c >= '0' && c <= '9') {
      nodes_[index].kind = FlatNode::Kind::kNumber;
      ok = number(nodes_[index].number);
    } else if (c == 't') {
      nodes_[index].kind = FlatNode::Kind::kTrue;
      ok = literal("true");
    } else if (c == 'f') {
      nodes_[index].kind = FlatNode::Kind::kFalse;
      ok = literal("false");
    } else if (c == 'n') {
      ok = literal("null");
    }
    nodes_[index].end = std::uint32_t(nodes_.size());
    return ok;
  }

  bool object(std::size_t index, int depth) {
    ++pos_;  // '{'
    if (eat('}')) return true;
    std::size_t members = 0;
    do {
      if (++members > FlatDocument::kMaxMembers) return false;
      std::string_view key;
      if (!string(key) || !eat(':')) return false;
      // A later duplicate would replace the earlier one in the full parser: declined instead.
      for (std::size_t i = index + 1; i < nodes_.size(); i = nodes_[i].end)
        if (nodes_[i].key == key) return false;
      if (!value(depth + 1, key)) return false;
    } while (eat(','));
    return eat('}');
  }

  bool array(int depth) {
    ++pos_;  // '['
    if (eat(']')) return true;
    do {
      if (!value(depth + 1, {})) return false;
    } while (eat(','));
    return eat(']');
  }

  std::string_view text_;
  std::vector<FlatNode>& nodes_;
  std::size_t pos_ = 0;
};

}  // namespace

std::optional<FlatDocument> FlatDocument::parse(std::string_view text) {
  FlatDocument doc;
  doc.nodes_.reserve(text.size() / 8 + 1);  // a node per eight bytes or more
  if (!FlatParser(text, doc.nodes_).document()) return std::nullopt;
  return doc;
}

}  // namespace kiln::runtime
