#include "cook/cook_report.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <span>

#include "kiln/core/atomic_output.h"
#include "kiln/core/text.h"

namespace kiln::cook {

VariantCounts count_variants(const std::vector<TargetVariants>& targets) {
  VariantCounts counts;
  for (const auto& target : targets)
    for (const VariantResult& r : target.results)
      if (r.ok) (r.cache_hit ? counts.cache_hits : counts.compiled)++;
  return counts;
}

VariantCounts report_cooked(const project::Project& project, const std::vector<TargetVariants>& targets,
                            const CookedScripts& scripts, const CookedTextures& textures,
                            std::size_t textures_discarded, nlohmann::json& report) {
  const VariantCounts counts = count_variants(targets);
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& target : targets)
    for (std::size_t i = 0; i < target.results.size(); ++i) {
      const auto& planned = project.variants[i];
      const VariantResult& r = target.results[i];
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
        v["result"] = r.cache_hit ? "cache_hit" : "compile";
        v["compile_ms"] = r.ms;
        v["spirv_bytes"] = r.spirv_bytes;
      }
      variants.push_back(std::move(v));
    }
  report["variants"] = std::move(variants);
  report["totals"] = {{"variants", project.variants.size()}, {"used", project.used},
                      {"declared", project.declared},        {"stripped", project.stripped},
                      {"compiled", counts.compiled},         {"cache_hits", counts.cache_hits}};
  report["scripts"] = {{"files", project.scripts.size()},    {"pages", scripts.stats.requested},
                       {"aot_pages", scripts.pages.size()},  {"compiled", scripts.stats.compiled},
                       {"cache_hits", scripts.stats.loaded}, {"not_cacheable", scripts.stats.not_cacheable}};
  report["textures"] = {{"files", project.textures.size()},
                        {"converted", textures.converted},
                        {"cache_hits", textures.files.size() - textures.converted - textures.from_tx},
                        {"from_tx", textures.from_tx},
                        {"target_copies", textures.target_files.size()},
                        {"cache_discarded", textures_discarded}};
  return counts;
}

std::vector<std::string> summary_lines(const nlohmann::json& report, const std::filesystem::path& out) {
  const auto count = [&](const char* part, const char* field) { return report[part].value(field, std::size_t{0}); };
  const auto seconds = [](double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f s", ms / 1000);
    return std::string(text);
  };
  const auto stage_time = [&](const char* stage) {
    const auto& times = report["stage_ms"];
    return seconds(times.contains(stage) ? times[stage].get<double>() : 0.0);
  };
  std::vector<std::string> lines;
  lines.push_back("cook: " + count_of(count("totals", "variants"), "variant") + " (" +
                  std::to_string(count("totals", "compiled")) + " compiled, " +
                  count_of(count("totals", "cache_hits"), "cache hit") + "), " + stage_time("variants"));
  lines.push_back("cook: " + count_of(count("scripts", "files"), "script") + " (" +
                  count_of(count("scripts", "pages"), "page") + ": " + std::to_string(count("scripts", "compiled")) +
                  " compiled, " + std::to_string(count("scripts", "cache_hits")) + " from the page cache), " +
                  stage_time("scripts"));
  const std::size_t from_tx = count("textures", "from_tx");
  lines.push_back("cook: " + count_of(count("textures", "files"), "texture") + " (" +
                  std::to_string(count("textures", "converted")) + " converted, " +
                  std::to_string(count("textures", "cache_hits")) + " from the cache" +
                  (from_tx ? ", " + std::to_string(from_tx) + " from .tx files" : std::string()) +
                  (count("textures", "target_copies")
                       ? ", " + std::to_string(count("textures", "target_copies")) + " sized for other targets"
                       : std::string()) +
                  "), " + stage_time("textures"));
  if (report.contains("previews") && report["previews"].contains("files"))
    lines.push_back("cook: " + count_of(report["previews"]["files"].size(), "preview") + " in " +
                    (out / "previews").string() + ", " + stage_time("previews"));
  const bool previews_failed = report.contains("previews") && report["previews"].contains("failed");
  lines.push_back(std::string("cook: ") + (previews_failed ? "previews failed" : "0 errors") + ", " +
                  seconds(report["totals"].value("wall_ms", 0.0)) + "; the set is in " + out.string());
  return lines;
}

void report_warnings(const std::vector<TargetVariants>& targets, nlohmann::json& report) {
  std::vector<std::pair<std::string, std::size_t>> warnings;  // few: a linear search is fine
  for (const auto& target : targets)
    for (const VariantResult& r : target.results) {
      std::set<std::string> seen;  // a warning in two stages of one variant counts it once
      for (std::size_t start = 0; start < r.warnings.size();) {
        const std::size_t end = std::min(r.warnings.find('\n', start), r.warnings.size());
        std::string line = r.warnings.substr(start, end - start);
        start = end + 1;
        if (line.empty() || !seen.insert(line).second) continue;
        auto it = std::find_if(warnings.begin(), warnings.end(), [&](const auto& w) { return w.first == line; });
        if (it == warnings.end())
          warnings.emplace_back(std::move(line), 1);
        else
          ++it->second;
      }
    }
  report["warnings"] = nlohmann::json::array();
  for (const auto& [message, variants] : warnings) {
    report["warnings"].push_back({{"message", message}, {"variants", variants}});
    std::fprintf(stderr, "%s (in %zu variant%s)\n", message.c_str(), variants, variants == 1 ? "" : "s");
  }
}

std::string report_text(const nlohmann::json& report) {
  return report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool write_report(const std::string& file, const nlohmann::json& report) {
  if (file.empty()) return true;
  const std::string text = report_text(report) + "\n";
  if (auto s = write_file_atomically(file, std::as_bytes(std::span(text))); !s) {
    std::fprintf(stderr, "kiln cook: %s\n", s.error().message.c_str());
    return false;
  }
  return true;
}

}  // namespace kiln::cook
