#pragma once
// A usage record: what runs of the game used, so that a cook can ship and warm exactly that. The
// player writes one (`--record-usage FILE`); `kiln usage merge` unions records from many runs and
// machines; the cook reads them (`--usage FILE...`).
//
//   {"format": "kiln-usage", "version": 1,
//    "variants": ["<target>:<shader>|<pass>|<keywords>", ...],
//    "pipelines": [{"variant": ..., "pass": ..., "vertex_layout": ..., "render_pass": ..., "target": ...}, ...],
//    "pages": ["<page id>", ...],
//    "textures": {"<file>": [<level>, ...], ...}}
//
// Variants, pages and texture levels are sets (written sorted); pipelines keep the order they were
// first created in, each once, since a player creates them again in that order before its first
// frame. The same record always encodes to the same text.
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::usage {

inline constexpr std::uint32_t kUsageVersion = 1;

// A pipeline and the state that made it.
struct PipelineUse {
  std::string variant;        // the variant's id, as in `variants`
  std::string pass;           // Forward, Shadow, ...
  std::string vertex_layout;  // the vertex input the pipeline was made for
  std::string render_pass;    // the attachments' formats it renders into
  std::string target;         // the cook target whose variant it is
  friend bool operator==(const PipelineUse&, const PipelineUse&) = default;
};

// Which pipelines a list has, for adding many in O(log n) each.
class PipelineIndex {
 public:
  explicit PipelineIndex(const std::vector<PipelineUse>& pipelines);
  bool insert(const PipelineUse& pipeline);  // false: it was there

 private:
  std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> keys_;
};

struct UsageRecord {
  std::set<std::string> variants;
  std::vector<PipelineUse> pipelines;  // in the order first created, each once
  std::set<std::string> pages;
  std::map<std::string, std::set<std::uint32_t>> textures;  // file -> mip levels sampled

  // Adds a pipeline unless it is there already (its first place stays). Linear: many at once go
  // through merge() or a PipelineIndex.
  void add_pipeline(const PipelineUse& pipeline);
  // Adds everything of `other`: its pipelines after this record's own.
  void merge(const UsageRecord& other);
  bool empty() const { return variants.empty() && pipelines.empty() && pages.empty() && textures.empty(); }
  friend bool operator==(const UsageRecord&, const UsageRecord&) = default;
};

std::string encode_usage(const UsageRecord& record);
// Errors name `where`, the JSON pointer and the problem.
Result<UsageRecord> decode_usage(std::string_view text, const std::string& where);
// The record in `file` (a regular file of at most the JSON input limit).
Result<UsageRecord> read_usage(const std::filesystem::path& file);
// Written through a temporary file and a rename: never a torn record.
Status write_usage(const std::filesystem::path& file, const UsageRecord& record);

}  // namespace kiln::usage
