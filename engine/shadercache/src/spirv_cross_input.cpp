#include "spirv_cross_input.h"

#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace kiln::shadercache {
namespace {

constexpr std::uint32_t kOpName = 5;
constexpr std::uint32_t kOpExtension = 10;
constexpr std::uint32_t kOpTypeArray = 28;
constexpr std::uint32_t kOpTypeRuntimeArray = 29;
constexpr std::uint32_t kOpTypeStruct = 30;
constexpr std::uint32_t kOpTypePointer = 32;
constexpr std::uint32_t kHeaderWords = 5;

// Calls `visit(offset, opcode, word_count)` for each instruction while the stream is well formed;
// false when it is not.
template <typename Visit>
bool for_each_instruction(std::span<const std::uint32_t> spirv, Visit&& visit) {
  if (spirv.size() < kHeaderWords) return false;
  for (std::size_t at = kHeaderWords; at < spirv.size();) {
    const std::uint32_t count = spirv[at] >> 16, opcode = spirv[at] & 0xffff;
    if (count == 0 || count > spirv.size() - at) return false;
    visit(at, opcode, count);
    at += count;
  }
  return true;
}

// The type ids that lie on a cycle or can reach one, by Tarjan's strongly connected components
// (iterative: a module's type graph can be deep).
std::unordered_set<std::uint32_t> reaching_cycles(
    const std::unordered_map<std::uint32_t, std::vector<std::uint32_t>>& edges) {
  std::unordered_map<std::uint32_t, std::uint32_t> index, low;
  std::unordered_set<std::uint32_t> on_stack, cyclic;
  std::vector<std::uint32_t> stack;
  std::uint32_t next = 0;
  static const std::vector<std::uint32_t> kNone;
  auto successors = [&](std::uint32_t v) -> const std::vector<std::uint32_t>& {
    auto it = edges.find(v);
    return it == edges.end() ? kNone : it->second;
  };
  for (const auto& [root, _] : edges) {
    if (index.count(root)) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> work{{root, 0}};  // node, next successor
    index[root] = low[root] = next++;
    stack.push_back(root);
    on_stack.insert(root);
    while (!work.empty()) {
      auto& [v, i] = work.back();
      const auto& next_nodes = successors(v);
      if (i < next_nodes.size()) {
        const std::uint32_t w = next_nodes[i++];
        if (!index.count(w)) {
          index[w] = low[w] = next++;
          stack.push_back(w);
          on_stack.insert(w);
          work.push_back({w, 0});
        } else if (on_stack.count(w)) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const std::uint32_t done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
      if (low[done] != index[done]) continue;
      std::vector<std::uint32_t> component;
      for (std::uint32_t w = 0; w != done;) {
        w = stack.back();
        stack.pop_back();
        on_stack.erase(w);
        component.push_back(w);
      }
      const auto& self = successors(done);
      if (component.size() > 1 || std::find(self.begin(), self.end(), done) != self.end())
        cyclic.insert(component.begin(), component.end());
    }
  }
  // Everything that reaches a cyclic node: walk the reversed edges from the cycles.
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> reversed;
  for (const auto& [from, to] : edges)
    for (std::uint32_t t : to) reversed[t].push_back(from);
  std::vector<std::uint32_t> pending(cyclic.begin(), cyclic.end());
  std::unordered_set<std::uint32_t> reaching = cyclic;
  while (!pending.empty()) {
    const std::uint32_t v = pending.back();
    pending.pop_back();
    if (auto it = reversed.find(v); it != reversed.end())
      for (std::uint32_t from : it->second)
        if (reaching.insert(from).second) pending.push_back(from);
  }
  return reaching;
}

std::string literal_string(std::span<const std::uint32_t> words) {
  std::string out;
  for (std::uint32_t w : words)
    for (int b = 0; b < 4; ++b) {
      const char c = char((w >> (8 * b)) & 0xff);
      if (c == '\0') return out;
      out.push_back(c);
    }
  return out;
}

}  // namespace

CrossInput spirv_cross_input(std::span<const std::uint32_t> spirv) {
  CrossInput out{{spirv.begin(), spirv.end()}, {}};
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> edges;  // type -> the types it contains
  std::unordered_set<std::uint32_t> structs;
  const bool well_formed = for_each_instruction(spirv, [&](std::size_t at, std::uint32_t op, std::uint32_t count) {
    if (op == kOpTypeStruct && count >= 2) {
      structs.insert(spirv[at + 1]);
      edges[spirv[at + 1]].assign(spirv.begin() + at + 2, spirv.begin() + at + count);
    } else if ((op == kOpTypeArray || op == kOpTypeRuntimeArray) && count >= 3) {
      edges[spirv[at + 1]] = {spirv[at + 2]};
    } else if (op == kOpTypePointer && count == 4) {
      edges[spirv[at + 1]] = {spirv[at + 3]};
    }
  });
  if (!well_formed) return out;
  const auto reaching = reaching_cycles(edges);
  bool held = false;
  for (std::uint32_t s : structs) held = held || reaching.count(s);
  if (!held) return out;
  out.words.assign(spirv.begin(), spirv.begin() + kHeaderWords);
  for_each_instruction(spirv, [&](std::size_t at, std::uint32_t op, std::uint32_t count) {
    if (op == kOpName && count >= 3 && structs.count(spirv[at + 1]) && reaching.count(spirv[at + 1])) {
      out.held_names.emplace_back(spirv[at + 1], literal_string(spirv.subspan(at + 2, count - 2)));
      return;
    }
    out.words.insert(out.words.end(), spirv.begin() + at, spirv.begin() + at + count);
  });
  return out;
}

void restore_held_names(spirv_cross::Compiler& compiler, const CrossInput& input) {
  for (const auto& [id, name] : input.held_names) compiler.set_name(id, name);
}

std::string spirv_cross_failure(std::span<const std::uint32_t> spirv, const std::string& what) {
  std::string extensions;
  for_each_instruction(spirv, [&](std::size_t at, std::uint32_t op, std::uint32_t count) {
    if (op == kOpExtension && count >= 2)
      extensions += (extensions.empty() ? "" : ", ") + literal_string(spirv.subspan(at + 1, count - 1));
  });
  std::string out = what;
  while (!out.empty() && (out.back() == '.' || out.back() == '\n')) out.pop_back();
  return extensions.empty() ? out : out + " (the module uses " + extensions + ")";
}

}  // namespace kiln::shadercache
