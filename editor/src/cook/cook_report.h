#pragma once
// The cook's report: what was built, from where, and what failed, as JSON for build tools
// (`kiln cook --json` prints it, `--report <file>` writes it through a temp file: a report that
// cannot be written is the cook's failure).
//
// Thread-safety: plain functions, called from the cook's thread.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/project/project.h"
#include "cook/cook_scripts.h"
#include "cook/cook_textures.h"
#include "cook/cook_variants.h"

namespace kiln::cook {

struct VariantCounts {
  std::size_t compiled = 0, cache_hits = 0;
};

// How many of the variants that built were compiled, and how many came from the cache.
VariantCounts count_variants(const std::vector<TargetVariants>& targets);

// Fills report["variants"], ["totals"], ["scripts"] and ["textures"]; returns the variant counts.
VariantCounts report_cooked(const project::Project& project, const std::vector<TargetVariants>& targets,
                            const CookedScripts& scripts, const CookedTextures& textures,
                            std::size_t textures_discarded, nlohmann::json& report);

// Each distinct compiler warning once, in the order first met, with the number of variants it
// concerns: into report["warnings"], and on stderr ("... (in 21 variants)").
void report_warnings(const std::vector<TargetVariants>& targets, nlohmann::json& report);

// The plain summary of a cook that wrote `out`: one line per stage with its counts and time, then
// the errors and the whole time.
std::vector<std::string> summary_lines(const nlohmann::json& report, const std::filesystem::path& out);

// The report as text: indented JSON, invalid UTF-8 in messages replaced.
std::string report_text(const nlohmann::json& report);
// Writes `report` to `file` (nothing when empty); false, said on stderr, when it cannot.
bool write_report(const std::string& file, const nlohmann::json& report);

}  // namespace kiln::cook
