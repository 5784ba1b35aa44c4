#include "cook/cook_shard.h"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "kiln/cache/hash.h"

namespace kiln::cook {
namespace {

std::optional<std::uint32_t> whole_number(std::string_view text) {
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string env_or_empty(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

Result<std::optional<Shard>> checked(std::uint32_t index, std::uint32_t count, const std::string& from) {
  if (count == 0 || count > 100000) return make_error(from + ": the shard count must be from 1 to 100000");
  if (index >= count)
    return make_error(from + ": shard " + std::to_string(index + 1) + " of " + std::to_string(count) +
                      " does not exist");
  return std::optional<Shard>(Shard{index, count});
}

}  // namespace

bool Shard::owns(std::string_view key) const { return count <= 1 || cache::xxh3_64(key) % count == index; }

std::string Shard::text() const { return std::to_string(index + 1) + "/" + std::to_string(count); }

Result<std::optional<Shard>> shard_of_cook(const std::string& flag, const std::string& count_flag,
                                           const std::map<std::string, std::string>& env) {
  std::optional<std::uint32_t> count_given;
  if (!count_flag.empty()) {
    count_given = whole_number(count_flag);
    if (!count_given) return make_error("--shard-count '" + count_flag + "': expected a whole number");
  }
  if (!flag.empty()) {
    if (count_given) return make_error("--shard i/N names its count: --shard-count is for JOB_COMPLETION_INDEX");
    const auto slash = flag.find('/');
    const auto i = whole_number(std::string_view(flag).substr(0, slash));
    const auto n = slash == std::string::npos ? std::nullopt : whole_number(std::string_view(flag).substr(slash + 1));
    if (!i || !n || *i == 0) return make_error("--shard '" + flag + "': expected i/N with i from 1 to N");
    return checked(*i - 1, *n, "--shard " + flag);
  }
  if (const std::string id = env_or_empty(env, "SLURM_ARRAY_TASK_ID"); !id.empty()) {
    const std::string min = env_or_empty(env, "SLURM_ARRAY_TASK_MIN");
    const std::string step_text = env_or_empty(env, "SLURM_ARRAY_TASK_STEP");
    const std::string total = env_or_empty(env, "SLURM_ARRAY_TASK_COUNT");
    const auto task = whole_number(id);
    const auto first = min.empty() ? std::optional<std::uint32_t>(0) : whole_number(min);
    const auto step = step_text.empty() ? std::optional<std::uint32_t>(1) : whole_number(step_text);
    const auto n = count_given ? count_given : whole_number(total);
    if (!task || !first || !step || *step == 0 || !n || *task < *first || (*task - *first) % *step != 0)
      return make_error("SLURM_ARRAY_TASK_ID=" + id + " SLURM_ARRAY_TASK_MIN=" + min +
                        " SLURM_ARRAY_TASK_STEP=" + step_text + " SLURM_ARRAY_TASK_COUNT=" + total +
                        ": not a shard (expected an array like --array=1-8 or 0-15:4)");
    return checked((*task - *first) / *step, *n, "SLURM_ARRAY_TASK_ID=" + id);
  }
  if (const std::string index = env_or_empty(env, "JOB_COMPLETION_INDEX"); !index.empty()) {
    const auto i = whole_number(index);
    if (!i) return make_error("JOB_COMPLETION_INDEX=" + index + ": expected a whole number");
    if (!count_given) return make_error("JOB_COMPLETION_INDEX=" + index + ": --shard-count N is needed with it");
    return checked(*i, *count_given, "JOB_COMPLETION_INDEX=" + index);
  }
  if (count_given) return make_error("--shard-count needs JOB_COMPLETION_INDEX or a Slurm job array");
  return std::optional<Shard>();
}

ShardWork shard_work(const project::Project& project, const Shard& shard) {
  ShardWork work;
  std::copy_if(project.variants.begin(), project.variants.end(), std::back_inserter(work.variants),
               [&](const auto& v) { return shard.owns("variant:" + v.key.name()); });
  std::copy_if(project.textures.begin(), project.textures.end(), std::back_inserter(work.textures),
               [&](const auto& t) { return shard.owns("texture:" + t.file); });
  return work;
}

}  // namespace kiln::cook
