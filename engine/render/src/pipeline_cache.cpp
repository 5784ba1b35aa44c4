#include "kiln/render/pipeline_cache.h"

#include <cstring>

#include "kiln/cache/hash.h"

namespace kiln::render {
namespace {

std::string hex(std::span<const std::uint8_t> bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : bytes) out += {digits[b >> 4], digits[b & 15]};
  return out;
}

std::uint32_t read_u32(std::span<const std::byte> data, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, data.data() + at, 4);
  return v;
}

}  // namespace

std::optional<std::string> check_pipeline_cache_data(std::span<const std::byte> data, const DeviceIdentity& device) {
  // VkPipelineCacheHeaderVersionOne: length, version, vendor, device, UUID (32 bytes in all).
  constexpr std::size_t kHeader = 16 + VK_UUID_SIZE;
  if (data.size() < kHeader) return "shorter than a pipeline cache header (" + std::to_string(data.size()) + " bytes)";
  const std::uint32_t length = read_u32(data, 0), version = read_u32(data, 4);
  if (length < kHeader || length > data.size()) return "header length " + std::to_string(length) + " is wrong";
  if (version != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) return "header version " + std::to_string(version);
  if (read_u32(data, 8) != device.vendor_id || read_u32(data, 12) != device.device_id)
    return "made for another device (vendor " + std::to_string(read_u32(data, 8)) + ", device " +
           std::to_string(read_u32(data, 12)) + ")";
  if (std::memcmp(data.data() + 16, device.pipeline_cache_uuid.data(), VK_UUID_SIZE) != 0)
    return "made by another driver build (pipelineCacheUUID differs)";
  return std::nullopt;
}

Result<std::pair<cache::BlobNamespace, cache::BlobKey>> pipeline_cache_entry(cache::BlobStore& store,
                                                                             const DeviceIdentity& device) {
  const std::string uuid = hex(device.pipeline_cache_uuid);
  auto ns = store.open_namespace("pipelines", {{"format", "vulkan pipeline cache data, header version one"}},
                                 {{"vendor", std::to_string(device.vendor_id)},
                                  {"device", std::to_string(device.device_id)},
                                  {"driver_version", std::to_string(device.driver_version)},
                                  {"pipeline_cache_uuid", uuid}});
  if (!ns) return ns.error();
  const std::string identity = std::to_string(device.vendor_id) + ":" + std::to_string(device.device_id) + ":" +
                               std::to_string(device.driver_version) + ":" + uuid;
  return std::make_pair(*ns, cache::BlobKey{cache::xxh3_128(identity)});
}

const char* outcome_name(PipelineCacheLoad::Outcome outcome) {
  switch (outcome) {
    case PipelineCacheLoad::Outcome::kDisabled: return "off";
    case PipelineCacheLoad::Outcome::kMiss: return "miss";
    case PipelineCacheLoad::Outcome::kHit: return "hit";
    case PipelineCacheLoad::Outcome::kRejected: return "rejected";
  }
  return "off";
}

Result<std::unique_ptr<PersistentPipelineCache>> PersistentPipelineCache::open(const VulkanContext& context,
                                                                               cache::BlobStore* store) {
  std::unique_ptr<PersistentPipelineCache> self(new PersistentPipelineCache());
  self->context_ = &context;
  self->store_ = store;
  std::optional<cache::Bytes> data;
  if (store) {
    auto entry = pipeline_cache_entry(*store, context.identity());
    if (!entry) {
      // The cache only saves time: one that cannot be used (a read-only root, another user's
      // directory) leaves the pipelines to be made from scratch, and says why.
      self->store_ = nullptr;
      self->load_.why = entry.error().message;
      store = nullptr;
    } else {
      self->entry_ = *entry;
    }
  }
  if (store) {
    bool corrupt = false;
    data = store->get(self->entry_->first, self->entry_->second, &corrupt);
    self->load_.outcome = PipelineCacheLoad::Outcome::kMiss;
    if (corrupt) {
      self->load_.outcome = PipelineCacheLoad::Outcome::kRejected;
      self->load_.why = "the stored entry failed its checksum and was deleted";
    }
    if (data) {
      if (auto problem = check_pipeline_cache_data(*data, context.identity())) {
        self->load_.outcome = PipelineCacheLoad::Outcome::kRejected;
        self->load_.why = *problem;
        data.reset();
      } else {
        self->load_.outcome = PipelineCacheLoad::Outcome::kHit;
        self->load_.bytes = data->size();
      }
    }
  }
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  if (data) {
    info.initialDataSize = data->size();
    info.pInitialData = data->data();
  }
  if (VkResult r = vkCreatePipelineCache(context.device(), &info, nullptr, &self->cache_); r != VK_SUCCESS)
    return make_error(std::string("cannot create a pipeline cache: ") + vk_result_name(r));
  return self;
}

PersistentPipelineCache::~PersistentPipelineCache() {
  if (cache_) vkDestroyPipelineCache(context_->device(), cache_, nullptr);
}

Result<std::uint64_t> PersistentPipelineCache::save() {
  if (!store_ || !entry_) return std::uint64_t{0};
  std::size_t size = 0;
  if (VkResult r = vkGetPipelineCacheData(context_->device(), cache_, &size, nullptr); r != VK_SUCCESS)
    return make_error(std::string("cannot read the pipeline cache: ") + vk_result_name(r));
  cache::Bytes data(size);
  if (VkResult r = vkGetPipelineCacheData(context_->device(), cache_, &size, data.data());
      r != VK_SUCCESS && r != VK_INCOMPLETE)
    return make_error(std::string("cannot read the pipeline cache: ") + vk_result_name(r));
  data.resize(size);
  // What the driver hands out must be what it takes back: never store what would be rejected.
  if (auto problem = check_pipeline_cache_data(data, context_->identity()))
    return make_error("the driver's pipeline cache data is not valid for it: " + *problem);
  store_->put(entry_->first, entry_->second, data);
  store_->flush();
  return std::uint64_t(data.size());
}

}  // namespace kiln::render
