#pragma once
// The driver's pipeline cache (VkPipelineCache), kept across runs in the persistent cache store
// (kind "pipelines"): one entry per driver identity (vendor, device, driver version, the device's
// pipelineCacheUUID), so a blob made by another driver is never even looked up. What is read is
// checked before the driver sees it: the store's checksum (a damaged entry is deleted), then the
// Vulkan header against this device (a blob for another one is a miss). A rejected or missing blob
// starts an empty cache, and save() writes the driver's data over it, atomically (the store writes
// a temp file and renames it). Pruned with the other kinds.
//
// A hit here means the driver was handed data it had made; whether the driver's pipeline creation
// then skipped work is the driver's own report (VK_EXT_pipeline_creation_feedback), kept apart.
// Mesa's lavapipe (Debian 12) returns only the 32-byte header and ignores what it is given.
//
// Thread-safety: one owner thread; handle() may be used by any thread creating pipelines (the
// driver synchronises a VkPipelineCache).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <vulkan/vulkan.h>

#include "kiln/cache/blob_store.h"
#include "kiln/core/result.h"
#include "kiln/render/vulkan_context.h"

namespace kiln::render {

// The problem with `data` as pipeline cache data of `device`, or nothing when its header fits.
std::optional<std::string> check_pipeline_cache_data(std::span<const std::byte> data, const DeviceIdentity& device);

// The namespace and key of `device`'s entry in `store`.
Result<std::pair<cache::BlobNamespace, cache::BlobKey>> pipeline_cache_entry(cache::BlobStore& store,
                                                                             const DeviceIdentity& device);

struct PipelineCacheLoad {
  enum class Outcome { kDisabled, kMiss, kHit, kRejected };
  Outcome outcome = Outcome::kDisabled;
  std::string why;          // kRejected: what was wrong with the stored blob; kDisabled: why a store
                            // given could not be used (empty when none was given)
  std::uint64_t bytes = 0;  // kHit: the data handed to the driver
};
const char* outcome_name(PipelineCacheLoad::Outcome outcome);  // "off", "miss", "hit", "rejected"

class PersistentPipelineCache {
 public:
  // `store` null, or a store whose pipelines entry cannot be opened (load().why says why): the
  // cache is off (an empty VkPipelineCache, nothing saved). Fails only when the driver does.
  static Result<std::unique_ptr<PersistentPipelineCache>> open(const VulkanContext& context, cache::BlobStore* store);
  ~PersistentPipelineCache();
  PersistentPipelineCache(const PersistentPipelineCache&) = delete;
  PersistentPipelineCache& operator=(const PersistentPipelineCache&) = delete;

  VkPipelineCache handle() const { return cache_; }
  const PipelineCacheLoad& load() const { return load_; }
  // The driver's data now, stored and flushed; the bytes written.
  Result<std::uint64_t> save();

 private:
  PersistentPipelineCache() = default;
  const VulkanContext* context_ = nullptr;
  cache::BlobStore* store_ = nullptr;
  std::optional<std::pair<cache::BlobNamespace, cache::BlobKey>> entry_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  PipelineCacheLoad load_;
};

}  // namespace kiln::render
