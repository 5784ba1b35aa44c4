#include "kiln/usage/usage_recorder.h"

namespace kiln::usage {

void UsageRecorder::variant(const std::string& id) {
  std::lock_guard lock(mu_);
  record_.variants.insert(id);
}

void UsageRecorder::pipeline(const PipelineUse& use) {
  std::lock_guard lock(mu_);
  if (known_.insert(use)) record_.pipelines.push_back(use);
}

void UsageRecorder::page(const std::string& id) {
  std::lock_guard lock(mu_);
  record_.pages.insert(id);
}

void UsageRecorder::texture_level(const std::string& file, std::uint32_t level) {
  std::lock_guard lock(mu_);
  record_.textures[file].insert(level);
}

UsageRecord UsageRecorder::record() const {
  std::lock_guard lock(mu_);
  return record_;
}

}  // namespace kiln::usage
