#include "usage_commands.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "kiln/core/text.h"
#include "kiln/usage/usage_record.h"

namespace kiln::cli {
namespace {

std::size_t texture_levels(const usage::UsageRecord& record) {
  std::size_t n = 0;
  for (const auto& [file, levels] : record.textures) n += levels.size();
  return n;
}

nlohmann::json summary_json(const usage::UsageRecord& record) {
  return {{"variants", record.variants.size()},
          {"pipelines", record.pipelines.size()},
          {"pages", record.pages.size()},
          {"textures", record.textures.size()},
          {"texture_levels", texture_levels(record)}};
}

std::string summary_line(const usage::UsageRecord& record) {
  return count_of(record.variants.size(), "variant") + ", " + count_of(record.pipelines.size(), "pipeline") + ", " +
         count_of(record.pages.size(), "hot page") + ", " + count_of(record.textures.size(), "texture") + " (" +
         count_of(texture_levels(record), "level") + ")";
}

int failed(const std::string& message) {
  std::fprintf(stderr, "kiln: %s\n", message.c_str());
  return kExitFailed;
}

}  // namespace

int run_usage_command(const Args& args) {
  const std::string& verb = args.words.at(1);
  if (verb == "show") {
    auto record = usage::read_usage(args.words.at(2));
    if (!record) return failed(record.error().message);
    if (args.json) {
      std::printf("%s\n", summary_json(*record).dump().c_str());
      return kExitOk;
    }
    std::printf("usage: %s: %s\n", args.words.at(2).c_str(), summary_line(*record).c_str());
    for (const auto& variant : record->variants) std::printf("  variant %s\n", variant.c_str());
    for (const auto& p : record->pipelines)
      std::printf("  pipeline %s (%s, %s, %s)\n", p.variant.c_str(), p.pass.c_str(), p.vertex_layout.c_str(),
                  p.render_pass.c_str());
    for (const auto& [file, levels] : record->textures) {
      std::string list;
      for (auto level : levels) list += (list.empty() ? "" : " ") + std::to_string(level);
      std::printf("  texture %s levels %s\n", file.c_str(), list.c_str());
    }
    return kExitOk;
  }
  // merge
  const std::string out = args.option("-o");
  if (out.empty()) {
    std::fprintf(stderr, "kiln usage merge: -o <record> is required\n");
    return kExitUsage;
  }
  usage::UsageRecord merged;
  for (std::size_t i = 2; i < args.words.size(); ++i) {
    auto record = usage::read_usage(args.words[i]);
    if (!record) return failed(record.error().message);
    merged.merge(*record);
  }
  if (auto written = usage::write_usage(out, merged); !written) return failed(written.error().message);
  if (args.json)
    std::printf("%s\n", summary_json(merged).dump().c_str());
  else
    std::printf("usage: %s records merged into %s: %s\n", std::to_string(args.words.size() - 2).c_str(), out.c_str(),
                summary_line(merged).c_str());
  return kExitOk;
}

}  // namespace kiln::cli
