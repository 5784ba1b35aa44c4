#pragma once
// Sharded cooks: N machines sharing a remote cache each build a deterministic 1/N of a project's
// work (its variants by key, its texture conversions by source), so that a final cook anywhere
// assembles the packs from cache hits alone. The shard comes from `--shard i/N` (counted from 1),
// or, for a cook that writes no packs, from the scheduler a farm already runs: a Slurm job array
// (SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT) or a Kubernetes indexed Job (JOB_COMPLETION_INDEX,
// counted from 0, with `--shard-count N`). A shard also sends the remote what its local cache
// already had.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/project/project.h"
#include "kiln/core/result.h"

namespace kiln::cook {

struct Shard {
  std::uint32_t index = 0;  // from 0
  std::uint32_t count = 1;
  // Whether the work named `key` is this shard's: a hash of the key, so every machine agrees.
  bool owns(std::string_view key) const;
  std::string text() const;  // "2/4", counted from 1 as --shard takes it
};

// The shard this cook builds, or none (a whole cook). `flag`: --shard's value; `count_flag`:
// --shard-count's. Fails, naming where the value came from, for an index outside its count.
Result<std::optional<Shard>> shard_of_cook(const std::string& flag, const std::string& count_flag,
                                           const std::map<std::string, std::string>& env);

// This shard's part of a project's work (the rest is other machines').
struct ShardWork {
  std::vector<materials::PlannedVariant> variants;
  std::vector<project::TextureInput> textures;
};
ShardWork shard_work(const project::Project& project, const Shard& shard);

}  // namespace kiln::cook
