#include "cook/cook_report.h"

#include "cook/cook_usage.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <span>

#include "kiln/core/atomic_output.h"
#include "kiln/core/input_limits.h"
#include "kiln/core/text.h"

namespace kiln::cook {

VariantCounts count_variants(const std::vector<TargetVariants>& targets) {
  VariantCounts counts;
  for (const auto& target : targets)
    for (const VariantResult& r : target.results)
      if (r.ok) (r.copied ? counts.unchanged : r.cache_hit ? counts.cache_hits : counts.compiled)++;
  return counts;
}

void report_cooked(const project::Project& project, const std::vector<TargetVariants>& targets,
                   const CookedScripts& scripts, const CookedTextures& textures, std::size_t textures_discarded,
                   CookReport& report) {
  report.targets = &targets;
  report.totals =
      ProjectTotals{project.variants.size(), project.used, project.declared, project.stripped, count_variants(targets)};
  report.scripts = ScriptCounts{project.scripts.size(), scripts.stats.requested, scripts.pages.size(),
                                scripts.stats.compiled, scripts.stats.loaded,    scripts.stats.not_cacheable};
  report.textures = TextureCounts{project.textures.size(),
                                  textures.converted,
                                  textures.files.size() - textures.converted - textures.from_tx,
                                  textures.from_tx,
                                  textures.target_files.size(),
                                  textures_discarded,
                                  textures.encoded,
                                  0,
                                  false,
                                  false,
                                  textures.formats,
                                  textures.gpu_bytes,
                                  textures.rgba8_gpu_bytes};
}

void report_warnings(const std::vector<TargetVariants>& targets, CookReport& report) {
  std::vector<Warning> warnings;  // few: a linear search is fine
  for (const auto& target : targets)
    for (const VariantResult& r : target.results) {
      std::set<std::string> seen;  // a warning in two stages of one variant counts it once
      for (std::size_t start = 0; start < r.warnings.size();) {
        const std::size_t end = std::min(r.warnings.find('\n', start), r.warnings.size());
        std::string line = r.warnings.substr(start, end - start);
        start = end + 1;
        if (line.empty() || !seen.insert(line).second) continue;
        auto it = std::find_if(warnings.begin(), warnings.end(), [&](const Warning& w) { return w.message == line; });
        if (it == warnings.end())
          warnings.push_back({std::move(line), 1});
        else
          ++it->variants;
      }
    }
  for (const Warning& w : warnings)
    std::fprintf(stderr, "%s (in %zu variant%s)\n", w.message.c_str(), w.variants, w.variants == 1 ? "" : "s");
  report.warnings = std::move(warnings);
}

namespace {

nlohmann::json variant_rows(const std::vector<TargetVariants>& targets) {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& target : targets)
    for (const VariantResult& r : target.results) {
      const auto& planned = *r.planned;
      nlohmann::json v = {{"key", planned.key.digest()},
                          {"shader", planned.key.shader},
                          {"pass", planned.key.pass},
                          {"keywords", planned.key.keywords},
                          {"target", target.target.id()},
                          {"materials", planned.materials},
                          {"why", planned.used ? "used" : "declared"}};
      if (!r.ok) {
        v["error"] = r.error;
      } else {
        v["result"] = r.copied ? "unchanged" : r.cache_hit ? "cache_hit" : "compile";
        v["compile_ms"] = r.ms;
        v["spirv_bytes"] = r.spirv_bytes;
      }
      variants.push_back(std::move(v));
    }
  return variants;
}

}  // namespace

nlohmann::json report_json(const CookReport& r) {
  nlohmann::json out = {{"project", r.project}, {"errors", r.errors}};
  nlohmann::json totals = {{"errors", r.error_count}, {"wall_ms", r.wall_ms}};
  if (r.totals) {
    totals["variants"] = r.totals->variants, totals["used"] = r.totals->used;
    totals["declared"] = r.totals->declared, totals["stripped"] = r.totals->stripped;
    totals["compiled"] = r.totals->built.compiled, totals["cache_hits"] = r.totals->built.cache_hits;
    totals["unchanged"] = r.totals->built.unchanged;
    // How a kept pack was proved whole: by its file identity, or by reading its bytes.
    if (r.totals->built.pack_kept)
      totals["pack_proved_by"] = r.totals->built.pack_proved_by_identity ? "identity" : "digest";
  }
  out["totals"] = std::move(totals);
  if (r.targets) out["variants"] = variant_rows(*r.targets);
  if (r.scripts)
    out["scripts"] = {{"files", r.scripts->files},           {"pages", r.scripts->pages},
                      {"aot_pages", r.scripts->aot_pages},   {"compiled", r.scripts->compiled},
                      {"cache_hits", r.scripts->cache_hits}, {"not_cacheable", r.scripts->not_cacheable}};
  if (r.textures)
    out["textures"] = {{"files", r.textures->files},
                       {"converted", r.textures->converted},
                       {"cache_hits", r.textures->cache_hits},
                       {"from_tx", r.textures->from_tx},
                       {"target_copies", r.textures->target_copies},
                       {"cache_discarded", r.textures->cache_discarded},
                       {"encoded", r.textures->encoded},
                       {"unchanged", r.textures->unchanged},
                       {"formats", r.textures->formats},
                       {"gpu_bytes", r.textures->gpu_bytes},
                       {"rgba8_gpu_bytes", r.textures->rgba8_gpu_bytes}};
  if (r.textures && r.textures->pack_kept)
    out["textures"]["pack_proved_by"] = r.textures->pack_proved_by_identity ? "identity" : "digest";
  if (r.warnings) {
    out["warnings"] = nlohmann::json::array();
    for (const Warning& w : *r.warnings) out["warnings"].push_back({{"message", w.message}, {"variants", w.variants}});
  }
  if (r.previews) {
    nlohmann::json p = nlohmann::json::object();
    if (!r.previews->skipped.empty()) {
      p["skipped"] = r.previews->skipped;
    } else if (!r.previews->device.empty()) {
      p["files"] = r.previews->files;
      p["device"] = r.previews->device;
      p["validated"] = r.previews->validated;
    }
    if (!r.previews->failed.empty()) p["failed"] = r.previews->failed;
    out["previews"] = std::move(p);
  }
  if (r.shard)
    out["shard"] = {{"index", r.shard->index},
                    {"count", r.shard->count},
                    {"variants", r.shard->variants},
                    {"compiled", r.shard->built.compiled},
                    {"cache_hits", r.shard->built.cache_hits},
                    {"textures", r.shard->textures},
                    {"converted", r.shard->converted}};
  if (r.remote) out["cache"]["remote"] = *r.remote;
  if (r.usage) out["usage"] = *r.usage;
  if (!r.shard)
    out["signature"] = r.signed_by.empty() ? nlohmann::json(nullptr) : nlohmann::json({{"key", r.signed_by}});
  nlohmann::json times = nlohmann::json::object();
  for (const auto& [stage, ms] : {std::pair{"project", r.stage_ms.project}, std::pair{"variants", r.stage_ms.variants},
                                  std::pair{"scripts", r.stage_ms.scripts}, std::pair{"textures", r.stage_ms.textures},
                                  std::pair{"commit", r.stage_ms.commit}, std::pair{"previews", r.stage_ms.previews}})
    if (ms) times[stage] = *ms;
  if (!times.empty()) out["stage_ms"] = std::move(times);
  return out;
}

std::vector<std::string> summary_lines(const CookReport& report, const std::filesystem::path& out) {
  const auto seconds = [](double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f s", ms / 1000);
    return std::string(text);
  };
  const auto stage_time = [&](const std::optional<double>& ms) { return seconds(ms.value_or(0.0)); };
  const ProjectTotals totals = report.totals.value_or(ProjectTotals{});
  const ScriptCounts scripts = report.scripts.value_or(ScriptCounts{});
  const TextureCounts textures = report.textures.value_or(TextureCounts{});
  std::vector<std::string> lines;
  lines.push_back("cook: " + count_of(totals.variants, "variant") + " (" + std::to_string(totals.built.compiled) +
                  " compiled, " + count_of(totals.built.cache_hits, "cache hit") +
                  (totals.built.unchanged
                       ? ", " + std::to_string(totals.built.unchanged) + " unchanged" +
                             (totals.built.pack_kept ? ": the pack is kept" : ", copied from the previous pack")
                       : "") +
                  "), " + stage_time(report.stage_ms.variants));
  lines.push_back("cook: " + count_of(scripts.files, "script") + " (" + count_of(scripts.pages, "page") + ": " +
                  std::to_string(scripts.compiled) + " compiled, " + std::to_string(scripts.cache_hits) +
                  " from the page cache), " + stage_time(report.stage_ms.scripts));
  lines.push_back("cook: " + count_of(textures.files, "texture") + " (" + std::to_string(textures.converted) +
                  " converted, " + std::to_string(textures.cache_hits) + " from the cache" +
                  (textures.from_tx ? ", " + std::to_string(textures.from_tx) + " from .tx files" : std::string()) +
                  (textures.unchanged ? ", " + std::to_string(textures.unchanged) + " unchanged: the pack is kept"
                                      : std::string()) +
                  (textures.target_copies ? ", " + std::to_string(textures.target_copies) + " sized for other targets"
                                          : std::string()) +
                  "), " + stage_time(report.stage_ms.textures));
  if (textures.rgba8_gpu_bytes && textures.gpu_bytes != textures.rgba8_gpu_bytes) {
    std::string formats;
    for (const auto& [format, n] : textures.formats)
      formats += (formats.empty() ? "" : ", ") + std::to_string(n) + " " + format;
    lines.push_back("cook: textures as " + formats + ": " + describe_bytes(textures.gpu_bytes) + " on the GPU (" +
                    describe_bytes(textures.rgba8_gpu_bytes) + " as RGBA8, " + std::to_string(textures.encoded) +
                    " encoded now)");
  }
  if (report.previews && report.previews->skipped.empty() && !report.previews->device.empty())
    lines.push_back("cook: " + count_of(report.previews->files.size(), "preview") + " in " +
                    (out / "previews").string() + ", " + stage_time(report.stage_ms.previews));
  if (report.usage)
    for (std::string& line : usage_lines(*report.usage)) lines.push_back(std::move(line));
  if (!report.signed_by.empty()) lines.push_back("cook: signed by key " + report.signed_by);
  const bool previews_failed = report.previews && !report.previews->failed.empty();
  lines.push_back(std::string("cook: ") + (previews_failed ? "previews failed" : "0 errors") + ", " +
                  seconds(report.wall_ms) + "; the set is in " + out.string());
  return lines;
}

std::string report_text(const CookReport& report) {
  return report_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool write_report(const std::string& file, const CookReport& report) {
  if (file.empty()) return true;
  const std::string text = report_text(report) + "\n";
  if (auto s = write_file_atomically(file, std::as_bytes(std::span(text))); !s) {
    std::fprintf(stderr, "kiln cook: %s\n", s.error().message.c_str());
    return false;
  }
  return true;
}

}  // namespace kiln::cook
