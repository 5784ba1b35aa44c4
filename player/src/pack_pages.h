#pragma once
// The compiled pages of a cooked set's scripts pack, served to the player's JitRuntime. A page
// whose entry fails its checksum or does not decode is reported once on stderr and counted; its
// script then runs interpreted, with the same results.
//
// Thread-safety: find() may be called from any thread.

#include <atomic>
#include <mutex>
#include <set>
#include <string>

#include "kiln/jit/aot_pages.h"
#include "kiln/runtime/pack.h"
#include "kiln/usage/usage_recorder.h"

namespace kiln::player {

class PackPages final : public jit::AotSource {
 public:
  // `recorder` (may be null) records the id of every page asked for: the pages that ran hot.
  PackPages(const runtime::Pack& pack, usage::UsageRecorder* recorder) : pack_(pack), recorder_(recorder) {}
  std::optional<jit::StoredPage> find(std::span<const std::uint32_t> page, std::span<const std::uint16_t> entries,
                                      jit::abi::JitMode mode) override;
  std::uint64_t damaged() const { return damaged_.load(); }

 private:
  void report(const std::string& name, const std::string& message);

  const runtime::Pack& pack_;
  usage::UsageRecorder* recorder_;
  std::atomic<std::uint64_t> damaged_{0};
  std::mutex mu_;
  std::set<std::string> reported_;  // guarded by mu_
};

}  // namespace kiln::player
