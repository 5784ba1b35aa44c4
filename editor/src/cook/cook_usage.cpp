#include "cook/cook_usage.h"

#include <algorithm>

#include "kiln/cache/hash.h"
#include "kiln/core/text.h"

namespace kiln::cook {

Result<UsageInput> read_usage_records(const std::vector<std::string>& files) {
  UsageInput input;
  input.files = files;
  for (const std::string& file : files) {
    auto record = usage::read_usage(file);
    if (!record) return record.error();
    if (record->variants.empty())
      return make_error(file +
                        ": the usage record names no variant (a run that drew nothing): ship by it and "
                        "the set would have no shader");
    input.record.merge(*record);
  }
  input.sha256 = cache::sha256_hex(std::string_view(usage::encode_usage(input.record)));
  return input;
}

nlohmann::json usage_report(const UsageInput& input, const project::UsageSelection& selection, bool lenient,
                            std::size_t pages_shipped, std::size_t pages_cold) {
  // Keywords by how many left-out variants have them, most first.
  std::vector<std::pair<std::string, std::size_t>> keywords(selection.left_out_keywords.begin(),
                                                            selection.left_out_keywords.end());
  std::stable_sort(keywords.begin(), keywords.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  nlohmann::json by_keyword = nlohmann::json::array();
  for (const auto& [keyword, n] : keywords) by_keyword.push_back({{"keyword", keyword}, {"variants", n}});
  nlohmann::json materials = nlohmann::json::object(), declared = nlohmann::json::object();
  for (const auto& [file, names] : selection.left_out_materials) materials[file] = names;
  for (const auto& [shader, names] : selection.left_out_declared) declared[shader] = names;
  return {{"records", input.files},
          {"sha256", input.sha256},
          {"lenient", lenient},
          {"shipped",
           {{"recorded", selection.shipped_recorded},
            {"always", selection.shipped_always},
            {"unrecorded", selection.shipped_unrecorded}}},
          {"left_out",
           {{"variants", selection.left_out_variants},
            {"materials", materials},
            {"declared", declared},
            {"keywords", by_keyword}}},
          {"stale", selection.stale},
          {"pages", {{"recorded", input.record.pages.size()}, {"shipped", pages_shipped}, {"cold", pages_cold}}}};
}

std::vector<std::string> usage_lines(const nlohmann::json& u) {
  std::vector<std::string> lines;
  const auto& shipped = u["shipped"];
  const auto& left = u["left_out"];
  std::string line = "cook: usage (" + count_of(u["records"].size(), "record") + ", sha256 " +
                     u["sha256"].get<std::string>().substr(0, 12) +
                     "): " + count_of(shipped["recorded"].get<std::size_t>(), "variant") + " recorded";
  if (shipped["always"].get<std::size_t>())
    line += ", " + std::to_string(shipped["always"].get<std::size_t>()) + " always";
  if (shipped["unrecorded"].get<std::size_t>())
    line += ", " + std::to_string(shipped["unrecorded"].get<std::size_t>()) + " unrecorded of used materials";
  line += "; " + std::to_string(left["variants"].get<std::size_t>()) + " left out";
  if (!left["materials"].empty()) line += " with " + count_of(left["materials"].size(), "material");
  lines.push_back(line);
  if (!left["keywords"].empty()) {
    std::string keywords;
    for (std::size_t i = 0; i < left["keywords"].size() && i < 6; ++i)
      keywords += (i ? ", " : "") + left["keywords"][i]["keyword"].get<std::string>() + " " +
                  std::to_string(left["keywords"][i]["variants"].get<std::size_t>());
    if (left["keywords"].size() > 6) keywords += ", ...";
    lines.push_back("cook: usage: left out by keyword: " + keywords);
  }
  const auto& pages = u["pages"];
  if (pages["recorded"].get<std::size_t>())
    lines.push_back("cook: usage: " + count_of(pages["shipped"].get<std::size_t>(), "hot page") + " compiled, " +
                    std::to_string(pages["cold"].get<std::size_t>()) + " left to the interpreter");
  if (!u["stale"].empty()) {
    std::string names;
    for (std::size_t i = 0; i < u["stale"].size() && i < 3; ++i)
      names += (i ? ", " : "") + u["stale"][i].get<std::string>();
    if (u["stale"].size() > 3) names += " and " + std::to_string(u["stale"].size() - 3) + " more";
    lines.push_back("cook: usage: the records name " + count_of(u["stale"].size(), "variant") +
                    " this project no longer builds (a shader or material changed since they were recorded): " + names);
  }
  return lines;
}

}  // namespace kiln::cook
