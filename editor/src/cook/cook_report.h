#pragma once
// The cook's report: what was built, from where, and what failed. Each stage fills its typed part
// of one CookReport; report_json() is its one serialisation (`kiln cook --json` prints it,
// `--report <file>` writes it through a temp file: a report that cannot be written is the cook's
// failure), and summary_lines() its plain form.
//
// Thread-safety: plain values and functions, used from the cook's thread.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cook/cook_scripts.h"
#include "cook/cook_textures.h"
#include "cook/cook_variants.h"
#include "kiln/project/project.h"

namespace kiln::cook {

// How many of the variants that built were compiled, and how many came from the cache: counted
// once, by count_variants, for the totals, the summary and a shard's line.
struct VariantCounts {
  std::size_t compiled = 0, cache_hits = 0;
  // Not built: the shaders pack was kept whole (unchanged_shaders.h), or they were copied from it
  // (previous_shaders.h).
  std::size_t unchanged = 0;
  bool pack_kept = false;
  bool pack_proved_by_identity = false;  // kept: by its file identity, not by reading it
};
VariantCounts count_variants(const std::vector<TargetVariants>& targets);

struct ProjectTotals {
  std::size_t variants = 0, used = 0, declared = 0, stripped = 0;
  VariantCounts built;
};
struct ScriptCounts {
  std::size_t files = 0, pages = 0, aot_pages = 0, compiled = 0, cache_hits = 0, not_cacheable = 0;
};
struct TextureCounts {
  std::size_t files = 0, converted = 0, cache_hits = 0, from_tx = 0, target_copies = 0, cache_discarded = 0;
  std::size_t encoded = 0;    // GPU encodings made now
  std::size_t unchanged = 0;  // not built: the textures pack was kept (unchanged_textures.h)
  bool pack_kept = false;
  bool pack_proved_by_identity = false;        // kept: by its file identity, not by reading it
  std::map<std::string, std::size_t> formats;  // the default target's textures per format
  std::uint64_t gpu_bytes = 0, rgba8_gpu_bytes = 0;
};
struct Warning {
  std::string message;
  std::size_t variants = 0;  // how many variants it concerns
};
struct PreviewsReport {
  std::vector<std::string> files;  // relative to the set
  std::string device, skipped, failed;
  bool validated = false;
};
struct ShardReport {
  std::size_t index = 0, count = 0, variants = 0, textures = 0, converted = 0;
  VariantCounts built;
};
struct StageTimes {
  // ms, for the stages that ran: reading the project, its three build stages, writing the set, previews
  std::optional<double> project, variants, scripts, textures, commit, previews;
};

struct CookReport {
  std::string project;
  // The stages' results; absent for a stage that did not run.
  const std::vector<TargetVariants>* targets = nullptr;  // one row per variant and target; outlives the report
  std::optional<ProjectTotals> totals;
  std::optional<ScriptCounts> scripts;
  std::optional<TextureCounts> textures;
  std::optional<std::vector<Warning>> warnings;
  std::optional<PreviewsReport> previews;
  std::optional<ShardReport> shard;
  std::optional<nlohmann::json> remote;  // the remote level's address and counters (cook_command.cpp)
  std::string signed_by;                 // the id of the key the manifest was signed with; empty: unsigned
  std::optional<nlohmann::json> usage;   // what usage records selected (cook_usage.h); absent without --usage
  StageTimes stage_ms;
  nlohmann::json errors = nlohmann::json::array();  // CookErrors::to_json
  std::size_t error_count = 0;
  double wall_ms = 0;
};

// What the variants, scripts and textures stages built, into `report`.
void report_cooked(const project::Project& project, const std::vector<TargetVariants>& targets,
                   const CookedScripts& scripts, const CookedTextures& textures, std::size_t textures_discarded,
                   CookReport& report);

// Each distinct compiler warning once, in the order first met, with the number of variants it
// concerns: into report.warnings, and on stderr ("... (in 21 variants)").
void report_warnings(const std::vector<TargetVariants>& targets, CookReport& report);

// The report as JSON: the one serialisation.
nlohmann::json report_json(const CookReport& report);

// The plain summary of a cook that wrote `out`: one line per stage with its counts and time, then
// the errors and the whole time.
std::vector<std::string> summary_lines(const CookReport& report, const std::filesystem::path& out);

// The report as text: indented JSON, invalid UTF-8 in messages replaced.
std::string report_text(const CookReport& report);
// Writes `report` to `file` (nothing when empty); false, said on stderr, when it cannot.
bool write_report(const std::string& file, const CookReport& report);

}  // namespace kiln::cook
