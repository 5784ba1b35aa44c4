#include "kiln/usage/usage_record.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "kiln/core/atomic_output.h"
#include "kiln/core/input_limits.h"
#include "kiln/core/json_document.h"

namespace kiln::usage {
namespace {

using nlohmann::json;
constexpr std::string_view kFormat = "kiln-usage";
constexpr std::uint32_t kMaxLevel = 31;  // a texture of 2^31 texels on a side has no more levels

}  // namespace

PipelineIndex::PipelineIndex(const std::vector<PipelineUse>& pipelines) {
  for (const PipelineUse& p : pipelines) insert(p);
}

bool PipelineIndex::insert(const PipelineUse& p) {
  return keys_.emplace(p.variant, p.pass, p.vertex_layout, p.render_pass, p.target).second;
}

void UsageRecord::add_pipeline(const PipelineUse& pipeline) {
  if (std::find(pipelines.begin(), pipelines.end(), pipeline) == pipelines.end()) pipelines.push_back(pipeline);
}

void UsageRecord::merge(const UsageRecord& other) {
  variants.insert(other.variants.begin(), other.variants.end());
  PipelineIndex seen(pipelines);
  for (const PipelineUse& p : other.pipelines)
    if (seen.insert(p)) pipelines.push_back(p);
  pages.insert(other.pages.begin(), other.pages.end());
  for (const auto& [file, levels] : other.textures) textures[file].insert(levels.begin(), levels.end());
}

std::string encode_usage(const UsageRecord& record) {
  nlohmann::ordered_json pipelines = nlohmann::ordered_json::array();
  for (const PipelineUse& p : record.pipelines)
    pipelines.push_back({{"variant", p.variant},
                         {"pass", p.pass},
                         {"vertex_layout", p.vertex_layout},
                         {"render_pass", p.render_pass},
                         {"target", p.target}});
  nlohmann::ordered_json textures = nlohmann::ordered_json::object();
  for (const auto& [file, levels] : record.textures) textures[file] = levels;
  const nlohmann::ordered_json doc = {{"format", kFormat},           {"version", kUsageVersion},
                                      {"variants", record.variants}, {"pipelines", pipelines},
                                      {"pages", record.pages},       {"textures", textures}};
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<UsageRecord> decode_usage(std::string_view text, const std::string& where) {
  auto parsed = parse_json_document(where, text);
  if (!parsed) return parsed.error();
  const json& root = *parsed;
  auto problem = [&](const std::string& pointer, const std::string& what) {
    return make_error(where + ": " + pointer + ": " + what);
  };
  if (!root.is_object()) return problem("", "expected a JSON object");
  if (!root.contains("format") || root["format"] != kFormat) return problem("/format", "expected \"kiln-usage\"");
  if (!root.contains("version") || !root["version"].is_number_unsigned())
    return problem("/version", "expected a version number");
  if (root["version"].get<std::uint64_t>() != kUsageVersion)
    return problem("/version", "version " + root["version"].dump() + " (this build reads " +
                                   std::to_string(kUsageVersion) + "); record it again");
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it.key() != "format" && it.key() != "version" && it.key() != "variants" && it.key() != "pipelines" &&
        it.key() != "pages" && it.key() != "textures")
      return problem("/" + json_pointer_token(it.key()),
                     "unknown field (expected format, version, variants, pipelines, pages, textures)");
  UsageRecord record;
  // A list of non-empty strings, each once.
  auto names = [&](const char* field, std::set<std::string>& out) -> Status {
    if (!root.contains(field)) return {};
    const json& list = root[field];
    const std::string at = std::string("/") + field;
    if (!list.is_array()) return problem(at, "expected an array of strings");
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string() || list[i].get<std::string>().empty())
        return problem(at + "/" + std::to_string(i), "expected a non-empty string");
      if (!out.insert(list[i].get<std::string>()).second) return problem(at + "/" + std::to_string(i), "listed twice");
    }
    return {};
  };
  KILN_TRY(names("variants", record.variants));
  KILN_TRY(names("pages", record.pages));
  if (root.contains("pipelines")) {
    const json& list = root["pipelines"];
    if (!list.is_array()) return problem("/pipelines", "expected an array of objects");
    PipelineIndex seen({});
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string at = "/pipelines/" + std::to_string(i);
      if (!list[i].is_object()) return problem(at, "expected an object");
      PipelineUse p;
      for (const auto& [field, member] :
           {std::pair{"variant", &PipelineUse::variant}, std::pair{"pass", &PipelineUse::pass},
            std::pair{"vertex_layout", &PipelineUse::vertex_layout},
            std::pair{"render_pass", &PipelineUse::render_pass}, std::pair{"target", &PipelineUse::target}}) {
        if (!list[i].contains(field) || !list[i][field].is_string())
          return problem(at + "/" + field, "expected a string");
        p.*member = list[i][field].get<std::string>();
      }
      if (list[i].size() != 5)
        return problem(at, "unknown field (expected variant, pass, vertex_layout, render_pass, target)");
      if (!seen.insert(p)) return problem(at, "listed twice");
      record.pipelines.push_back(std::move(p));
    }
  }
  if (root.contains("textures")) {
    const json& files = root["textures"];
    if (!files.is_object()) return problem("/textures", "expected an object of file: [levels]");
    for (auto it = files.begin(); it != files.end(); ++it) {
      const std::string at = "/textures/" + json_pointer_token(it.key());
      if (it.key().empty()) return problem(at, "expected a texture file name");
      if (!it->is_array()) return problem(at, "expected an array of mip levels");
      auto& levels = record.textures[it.key()];
      for (std::size_t i = 0; i < it->size(); ++i) {
        const json& level = (*it)[i];
        if (!level.is_number_unsigned() || level.get<std::uint64_t>() > kMaxLevel)
          return problem(at + "/" + std::to_string(i), "expected a mip level from 0 to 31");
        if (!levels.insert(level.get<std::uint32_t>()).second)
          return problem(at + "/" + std::to_string(i), "listed twice");
      }
    }
  }
  return record;
}

Result<UsageRecord> read_usage(const std::filesystem::path& file) {
  auto text = read_input_file(file, limits::kJsonFileBytes, "usage record");
  if (!text) return text.error();
  return decode_usage(*text, file.string());
}

Status write_usage(const std::filesystem::path& file, const UsageRecord& record) {
  const std::string text = encode_usage(record);
  return write_file_atomically(file, std::as_bytes(std::span(text)));
}

}  // namespace kiln::usage
