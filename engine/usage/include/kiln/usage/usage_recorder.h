#pragma once
// What a running game records as it uses things, gathered into a UsageRecord at the end. Each thing
// is recorded when it is first used (a variant resolved, a pipeline created, a page asked for, a
// texture level uploaded or sampled), not per frame, so one mutex is enough.
//
// Thread-safety: every member function may be called from any thread.

#include <cstdint>
#include <mutex>
#include <string>

#include "kiln/usage/usage_record.h"

namespace kiln::usage {

class UsageRecorder {
 public:
  void variant(const std::string& id);
  void pipeline(const PipelineUse& use);
  void page(const std::string& id);
  void texture_level(const std::string& file, std::uint32_t level);
  UsageRecord record() const;

 private:
  mutable std::mutex mu_;
  UsageRecord record_;       // guarded by mu_
  PipelineIndex known_{{}};  // record_.pipelines, guarded by mu_
};

}  // namespace kiln::usage
