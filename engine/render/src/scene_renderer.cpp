#include "kiln/render/scene_renderer.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "kiln/render/preview_mesh.h"
#include "kiln/textures/texture_settings.h"
#include "kiln/textures/tx_file.h"

namespace kiln::render {
namespace {

using Mat4 = std::array<float, 16>;  // column-major, as GLSL's std140 mat4

Mat4 multiply(const Mat4& a, const Mat4& b) {
  Mat4 out{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 4; ++k) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}

// Vulkan's clip space: y down, depth 0..1; a right-handed view looking down -z.
Mat4 perspective(float fov_y, float aspect, float near, float far) {
  const float f = 1.0f / std::tan(fov_y / 2);
  Mat4 m{};
  m[0] = f / aspect;
  m[5] = -f;
  m[10] = far / (near - far);
  m[11] = -1;
  m[14] = near * far / (near - far);
  return m;
}

Mat4 translation(float x, float y, float z) {
  Mat4 m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1};
  return m;
}

Mat4 rotation_y(float angle) {
  const float c = std::cos(angle), s = std::sin(angle);
  Mat4 m{c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1};
  return m;
}

void full_barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
}

// A read-back buffer of half floats as a linear image.
void unpack(const Buffer& buffer, std::uint32_t w, std::uint32_t h, LinearImage& out) {
  out.width = w, out.height = h;
  out.rgba.resize(std::size_t(w) * h * 4);
  const auto* halves = reinterpret_cast<const std::uint16_t*>(buffer.data());
  for (std::size_t i = 0; i < out.rgba.size(); ++i) out.rgba[i] = textures::half_to_float(halves[i]);
}

constexpr VkFormat kHdr = VK_FORMAT_R16G16B16A16_SFLOAT;
constexpr std::uint32_t kJoints = 64;

}  // namespace

// A material drawn in its own view, or a post-process pass over the frame.
struct Pass {
  std::string material;
  const MaterialPipeline* pipeline = nullptr;
  std::vector<VkDescriptorSet> sets;
  std::vector<std::unique_ptr<Buffer>> blocks;  // the material's uniform parameter blocks
  std::map<std::pair<std::uint32_t, std::uint32_t>, Buffer*> block_at;
  std::vector<std::byte> push;  // push-constant bytes (the cooked block, or the model matrix)
  // Drawn views only:
  std::vector<std::unique_ptr<Buffer>> streams;
  std::unique_ptr<Image> color, depth;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  std::unique_ptr<Buffer> readback;
};

struct SceneRenderer::Impl {
  const VulkanContext* context = nullptr;
  std::uint32_t size = 256, columns = 1, rows = 1;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  std::unique_ptr<Buffer> camera, skin, indices, zeros;
  std::uint32_t index_count = 0;
  std::map<std::string, std::unique_ptr<GpuTexture>> textures;
  bool decode_textures = false;
  // Let go of while descriptor sets of the shown passes may still name them: freed with the passes.
  std::vector<std::unique_ptr<GpuTexture>> retired_textures;
  std::vector<std::unique_ptr<Buffer>> retired_buffers;
  std::unique_ptr<GpuTexture> white, flat_normal;
  std::vector<Pass> views, posts;
  std::unique_ptr<Image> frame, post_output;
  std::unique_ptr<Buffer> frame_readback, post_readback;

  PreviewMesh sphere;

  ~Impl() { clear_passes(); }

  // The views and post-process passes of the materials shown; the shared resources stay.
  void clear_passes() {
    if (!context) return;
    const VkDevice device = context->device();
    vkDeviceWaitIdle(device);
    for (auto& v : views)
      if (v.framebuffer) vkDestroyFramebuffer(device, v.framebuffer, nullptr);
    if (pool) vkDestroyDescriptorPool(device, pool, nullptr);
    pool = VK_NULL_HANDLE;
    views.clear();
    posts.clear();
    retired_textures.clear();
    retired_buffers.clear();
  }

  Result<Buffer*> zero_block(std::uint32_t bytes) {
    if (!zeros || zeros->size() < bytes) {
      auto made = Buffer::create(*context, std::max<std::uint32_t>(bytes, 256), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
      if (!made) return made.error();
      if (zeros) retired_buffers.push_back(std::move(zeros));  // descriptor sets written before use it
      zeros = std::move(*made);
    }
    return zeros.get();
  }

  Result<const GpuTexture*> texture(const SceneSource& source, const std::string& file) {
    if (auto it = textures.find(file); it != textures.end()) return it->second.get();
    auto bytes = source.texture(file);
    if (!bytes) return bytes.error();
    auto uploaded = GpuTexture::upload(*context, source.textures_origin() + ": " + file, *bytes,
                                       {.decode_unsupported = decode_textures});
    if (!uploaded) return uploaded.error();
    return textures.emplace(file, std::move(*uploaded)).first->second.get();
  }

  // The descriptor sets of `pass`, every binding written from what the reflection names.
  Status bind(const SceneSource& source, const runtime::MaterialPass& record, Pass& pass) {
    const runtime::ShaderInterface& interface = pass.pipeline->shaders->interface;
    const auto& layouts = pass.pipeline->shaders->layout->set_layouts();
    if (!layouts.empty()) {
      VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      alloc.descriptorPool = pool;
      alloc.descriptorSetCount = std::uint32_t(layouts.size());
      alloc.pSetLayouts = layouts.data();
      pass.sets.resize(layouts.size());
      if (VkResult r = vkAllocateDescriptorSets(context->device(), &alloc, pass.sets.data()); r != VK_SUCCESS)
        return make_error(pass.material + ": cannot allocate descriptor sets: " + vk_result_name(r));
    }
    for (const runtime::ParameterBlock& block : record.blocks) {
      if (block.kind == runtime::ParameterBlock::Kind::kPushConstant) {
        pass.push = block.bytes;
        continue;
      }
      auto buffer =
          Buffer::create(*context, std::max<std::size_t>(block.bytes.size(), 16), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
      if (!buffer) return buffer.error();
      (*buffer)->write(block.bytes);
      pass.block_at[{block.set, block.binding}] = buffer->get();
      pass.blocks.push_back(std::move(*buffer));
    }
    bool first_storage_image = true;
    for (const runtime::DescriptorBinding& d : interface.bindings) {
      VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      write.dstSet = pass.sets.at(d.set);
      write.dstBinding = d.binding;
      write.descriptorType = vk_descriptor_type(d.kind);
      std::vector<VkDescriptorBufferInfo> buffers(d.count);
      std::vector<VkDescriptorImageInfo> images(d.count);
      write.descriptorCount = d.count;
      if (d.kind == runtime::DescriptorKind::kUniformBuffer || d.kind == runtime::DescriptorKind::kStorageBuffer) {
        Buffer* buffer = nullptr;
        if (auto it = pass.block_at.find({d.set, d.binding}); it != pass.block_at.end())
          buffer = it->second;
        else if (d.name == "Camera")
          buffer = camera.get();
        else if (d.kind == runtime::DescriptorKind::kStorageBuffer)
          buffer = skin.get();
        else if (auto z = zero_block(d.block_size); z)
          buffer = *z;
        else
          return z.error();
        for (auto& b : buffers) b = {buffer->handle(), 0, VK_WHOLE_SIZE};
        write.pBufferInfo = buffers.data();
      } else if (d.kind == runtime::DescriptorKind::kStorageImage) {
        const Image* image = first_storage_image ? frame.get() : post_output.get();
        first_storage_image = false;
        for (auto& i : images) i = {VK_NULL_HANDLE, image->view(), VK_IMAGE_LAYOUT_GENERAL};
        write.pImageInfo = images.data();
      } else {
        const GpuTexture* texture = d.name.find("normal") != std::string::npos ? flat_normal.get() : white.get();
        for (const runtime::TextureBinding& t : record.textures)
          if (t.set == d.set && t.binding == d.binding) {
            auto uploaded = this->texture(source, t.texture);
            if (!uploaded) return uploaded.error();
            texture = *uploaded;
          }
        for (auto& i : images) i = {texture->sampler(), texture->view(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        write.pImageInfo = images.data();
      }
      vkUpdateDescriptorSets(context->device(), 1, &write, 0, nullptr);
    }
    if (pass.push.size() < interface.push_constant_size) pass.push.resize(interface.push_constant_size);
    return {};
  }

  // Draws `pass`'s view into its own targets and copies it to its read-back buffer (the
  // view's image is left in TRANSFER_SRC layout by the render pass).
  void record_view(VkCommandBuffer cmd, Pass& pass, const Mat4& model) {
    const runtime::ShaderInterface& interface = pass.pipeline->shaders->interface;
    VkClearValue clears[2] = {};
    clears[1].depthStencil = {1.0f, 0};
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = pass.pipeline->render_pass;
    begin.framebuffer = pass.framebuffer;
    begin.renderArea = {{0, 0}, {size, size}};
    begin.clearValueCount = 2;
    begin.pClearValues = clears;
    vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
    const VkViewport viewport{0, 0, float(size), float(size), 0, 1};
    const VkRect2D scissor{{0, 0}, {size, size}};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pass.pipeline->pipeline);
    const VkPipelineLayout layout = pass.pipeline->shaders->layout->handle();
    if (!pass.sets.empty())
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, std::uint32_t(pass.sets.size()),
                              pass.sets.data(), 0, nullptr);
    if (interface.push_constant_size > 0) {
      if (pass.push.size() >= 64) std::memcpy(pass.push.data(), model.data(), 64);  // Object.model
      vkCmdPushConstants(cmd, layout, vk_stages(interface.push_constant_stages), 0, interface.push_constant_size,
                         pass.push.data());
    }
    for (std::uint32_t b = 0; b < pass.streams.size(); ++b) {
      const VkBuffer buffer = pass.streams[b]->handle();
      const VkDeviceSize offset = 0;
      vkCmdBindVertexBuffers(cmd, b, 1, &buffer, &offset);
    }
    vkCmdBindIndexBuffer(cmd, indices->handle(), 0, VK_INDEX_TYPE_UINT32);
    vkCmdDrawIndexed(cmd, index_count, 1, 0, 0, 0);
    vkCmdEndRenderPass(cmd);
    VkBufferImageCopy out{};
    out.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    out.imageExtent = {size, size, 1};
    vkCmdCopyImageToBuffer(cmd, pass.color->handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pass.readback->handle(), 1,
                           &out);
  }

  void set_camera(double time_seconds, Mat4& model) {
    // The camera: 3 units in front of the sphere, looking at it; fog thin and grey.
    const Mat4 view_projection = multiply(perspective(0.8f, 1.0f, 0.1f, 100.0f), translation(0, 0, -3));
    const float eye[4] = {0, 0, 3, 1}, fog[4] = {0.02f, 0.5f, 0.5f, 0.55f};
    camera->write(std::as_bytes(std::span(view_projection)));
    camera->write(std::as_bytes(std::span(eye)), 64);
    camera->write(std::as_bytes(std::span(fog)), 80);
    model = rotation_y(float(time_seconds) * 0.5f);
  }

  Status make_view_targets(Pass& pass) {
    auto color = Image::create(
        *context, {size, size, 1, kHdr, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT});
    if (!color) return color.error();
    auto depth = Image::create(*context, {size, size, 1, pass.pipeline->targets.depth,
                                          VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT});
    if (!depth) return depth.error();
    pass.color = std::move(*color);
    pass.depth = std::move(*depth);
    const VkImageView attachments[] = {pass.color->view(), pass.depth->view()};
    VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    info.renderPass = pass.pipeline->render_pass;
    info.attachmentCount = 2;
    info.pAttachments = attachments;
    info.width = info.height = size;
    info.layers = 1;
    if (VkResult r = vkCreateFramebuffer(context->device(), &info, nullptr, &pass.framebuffer); r != VK_SUCCESS)
      return make_error(std::string("cannot create a framebuffer: ") + vk_result_name(r));
    auto readback = Buffer::create(*context, VkDeviceSize(size) * size * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    if (!readback) return readback.error();
    pass.readback = std::move(*readback);
    return {};
  }
};

namespace {

// The code of a linear value as the sRGB curve rounds it.
int srgb_code(float v) { return int(std::lround(textures::linear_to_srgb(std::clamp(v, 0.0f, 1.0f)) * 255.0f)); }

// The smallest linear value of each 8-bit sRGB code from 1 up (as srgb_code rounds, to the last
// bit): to_srgb8 searches the table instead of raising to a power per channel.
const std::array<float, 255>& srgb_starts() {
  static const std::array<float, 255> starts = [] {
    std::array<float, 255> t{};
    for (int k = 1; k <= 255; ++k) {
      float v = textures::srgb_to_linear((float(k) - 0.5f) / 255.0f);
      while (srgb_code(v) < k) v = std::nextafter(v, 2.0f);
      while (srgb_code(std::nextafter(v, -1.0f)) >= k) v = std::nextafter(v, -1.0f);
      t[k - 1] = v;
    }
    return t;
  }();
  return starts;
}

}  // namespace

textures::Image to_srgb8(const LinearImage& image) {
  textures::Image out{image.width, image.height, 4,
                      std::vector<std::uint8_t>(std::size_t(image.width) * image.height * 4)};
  const auto& starts = srgb_starts();
  for (std::size_t p = 0; p < std::size_t(image.width) * image.height; ++p) {
    for (int c = 0; c < 3; ++c) {
      const float v = image.rgba[p * 4 + c];
      out.pixels[p * 4 + c] =
          std::isnan(v) ? 0 : std::uint8_t(std::upper_bound(starts.begin(), starts.end(), v) - starts.begin());
    }
    out.pixels[p * 4 + 3] = 255;
  }
  return out;
}

Result<std::filesystem::path> write_view_picture(const SceneRenderer& scene, std::size_t view,
                                                 const std::filesystem::path& dir, textures::PngWriteOptions options) {
  const auto picture = std::filesystem::path(scene.drawn().at(view)).replace_extension(".png");
  std::error_code ec;
  std::filesystem::create_directories((dir / picture).parent_path(), ec);
  KILN_TRY(textures::write_png(to_srgb8(scene.view(view)), dir / picture, options));
  return picture;
}

std::vector<UploadedTexture> SceneRenderer::uploaded_textures() const {
  std::vector<UploadedTexture> out;
  for (const auto& [file, texture] : impl_->textures)
    out.push_back({file, std::string(texture->shipped_format()), texture->decoded(), texture->levels()});
  return out;
}

Result<std::unique_ptr<SceneRenderer>> SceneRenderer::create(const VulkanContext& context, SceneOptions options) {
  std::unique_ptr<SceneRenderer> self(new SceneRenderer());
  self->impl_ = std::make_unique<Impl>();
  Impl& s = *self->impl_;
  s.context = &context;
  s.size = options.view_size;
  s.decode_textures = options.decode_textures;
  // Shared resources: camera, joints, the sphere, stand-in textures.
  auto camera = Buffer::create(context, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  auto skin = Buffer::create(context, kJoints * 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  if (!camera || !skin) return make_error("cannot create the scene's buffers");
  s.camera = std::move(*camera);
  s.skin = std::move(*skin);
  const Mat4 identity = translation(0, 0, 0);
  for (std::uint32_t j = 0; j < kJoints; ++j) s.skin->write(std::as_bytes(std::span(identity)), j * 64);
  s.sphere = uv_sphere();
  auto indices = Buffer::create(context, s.sphere.indices.size() * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
  if (!indices) return indices.error();
  s.indices = std::move(*indices);
  s.indices->write(std::as_bytes(std::span(s.sphere.indices)));
  s.index_count = std::uint32_t(s.sphere.indices.size());
  const std::uint8_t white[4] = {255, 255, 255, 255}, flat[4] = {128, 128, 255, 255};
  auto w = GpuTexture::solid(context, white);
  auto n = GpuTexture::solid(context, flat);
  if (!w) return w.error();
  if (!n) return n.error();
  s.white = std::move(*w);
  s.flat_normal = std::move(*n);
  return self;
}

Result<std::unique_ptr<SceneRenderer>> SceneRenderer::create(const VulkanContext& context, const SceneSource& source,
                                                             const PipelineSet& pipelines, SceneOptions options) {
  auto self = create(context, options);
  if (!self) return self.error();
  KILN_TRY((*self)->show(source, pipelines));
  return self;
}

void SceneRenderer::forget_texture(const std::string& file) {
  auto it = impl_->textures.find(file);
  if (it == impl_->textures.end()) return;
  impl_->retired_textures.push_back(std::move(it->second));  // the shown passes may still sample it
  impl_->textures.erase(it);
}

Status SceneRenderer::show(const SceneSource& source, const PipelineSet& pipelines) {
  Status shown = show_passes(source, pipelines);
  if (!shown) {  // nothing half-shown: no views to draw until a show succeeds
    impl_->clear_passes();
    drawn_names_.clear();
    views_.clear();
  }
  return shown;
}

Status SceneRenderer::show_passes(const SceneSource& source, const PipelineSet& pipelines) {
  Impl& s = *impl_;
  const VulkanContext& context = *s.context;
  s.clear_passes();
  drawn_names_.clear();
  views_.clear();

  // What is drawn: each material's Forward pipeline; what runs after: compute materials.
  std::map<VkDescriptorType, std::uint32_t> descriptors;  // acceleration structures are not 0..10
  std::uint32_t sets = 0;
  std::vector<std::pair<runtime::MaterialPass, const MaterialPipeline*>> chosen_views, chosen_posts;
  for (const std::string& file : source.materials()) {
    auto material = source.material(file);
    if (!material) return material.error();
    for (const runtime::MaterialPass& pass : material->passes) {
      const MaterialPipeline* p = pipelines.find(file, pass.pass);
      if (!p) continue;
      const bool post = p->bind_point == VK_PIPELINE_BIND_POINT_COMPUTE;
      if (!post && p->targets.kind != PassKind::kForward) continue;
      (post ? chosen_posts : chosen_views).emplace_back(pass, p);
      sets += std::uint32_t(p->shaders->layout->set_layouts().size());
      for (const runtime::DescriptorBinding& d : p->shaders->interface.bindings)
        descriptors[vk_descriptor_type(d.kind)] += d.count;
    }
  }
  std::vector<VkDescriptorPoolSize> sizes;
  for (const auto& [type, count] : descriptors)
    if (count) sizes.push_back({type, count});
  VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool.maxSets = std::max(sets, 1u);
  pool.poolSizeCount = std::uint32_t(sizes.size());
  pool.pPoolSizes = sizes.data();
  if (!sizes.empty())
    if (VkResult r = vkCreateDescriptorPool(context.device(), &pool, nullptr, &s.pool); r != VK_SUCCESS)
      return make_error(std::string("cannot create a descriptor pool: ") + vk_result_name(r));

  // The frame: one cell per view, made again only when the grid changes.
  const auto count = std::uint32_t(std::max<std::size_t>(chosen_views.size(), 1));
  const std::uint32_t columns = std::uint32_t(std::ceil(std::sqrt(double(count))));
  const std::uint32_t rows = (count + columns - 1) / columns;
  if (!s.frame || columns != s.columns || rows != s.rows) {
    s.columns = columns, s.rows = rows;
    const VkImageUsageFlags frame_usage =
        VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    auto frame = Image::create(context, {s.columns * s.size, s.rows * s.size, 1, kHdr, frame_usage});
    auto post = Image::create(context, {s.columns * s.size, s.rows * s.size, 1, kHdr, frame_usage});
    if (!frame) return frame.error();
    if (!post) return post.error();
    s.frame = std::move(*frame);
    s.post_output = std::move(*post);
    const VkDeviceSize frame_bytes = VkDeviceSize(s.columns) * s.size * s.rows * s.size * 8;
    auto frame_readback = Buffer::create(context, frame_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    auto post_readback = Buffer::create(context, frame_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    if (!frame_readback || !post_readback) return make_error("cannot create the read-back buffers");
    s.frame_readback = std::move(*frame_readback);
    s.post_readback = std::move(*post_readback);
  }

  for (auto& [record, pipeline] : chosen_views) {
    Pass pass;
    pass.pipeline = pipeline;
    pass.material = pipeline->material;
    KILN_TRY(s.bind(source, record, pass));
    for (const runtime::VertexInput& in : pipeline->shaders->interface.vertex_inputs) {
      const auto bytes = vertex_stream(s.sphere, in);
      auto stream = Buffer::create(context, std::max<std::size_t>(bytes.size(), 4), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
      if (!stream) return stream.error();
      (*stream)->write(bytes);
      pass.streams.push_back(std::move(*stream));
    }
    KILN_TRY(s.make_view_targets(pass));
    drawn_names_.push_back(pass.material);
    s.views.push_back(std::move(pass));
  }
  for (auto& [record, pipeline] : chosen_posts) {
    Pass pass;
    pass.pipeline = pipeline;
    pass.material = pipeline->material;
    KILN_TRY(s.bind(source, record, pass));
    s.posts.push_back(std::move(pass));
  }
  views_.resize(s.views.size());
  return {};
}

SceneRenderer::~SceneRenderer() = default;

Result<SceneRenderer::ParameterSlot> SceneRenderer::find_parameter(std::string_view material, std::string_view name) {
  ParameterSlot slot;
  for (auto* passes : {&impl_->views, &impl_->posts})
    for (Pass& pass : *passes) {
      if (pass.material != material) continue;
      const runtime::ShaderInterface& interface = pass.pipeline->shaders->interface;
      auto add = [&](const runtime::BlockMember& m, std::byte* base, std::size_t limit) {
        if (m.name != name || m.offset + m.size > limit) return;
        const bool integer = m.type.find("int") != std::string::npos || m.type.find("bool") != std::string::npos;
        slot.places.push_back({base + m.offset, m.size, integer});
        slot.components = std::max(slot.components, m.size / 4);
      };
      for (const auto& [where, buffer] : pass.block_at)
        if (const runtime::DescriptorBinding* d = interface.binding(where.first, where.second))
          for (const runtime::BlockMember& m : d->members) add(m, buffer->data(), buffer->size());
      for (const runtime::BlockMember& m : interface.push_constant_members) add(m, pass.push.data(), pass.push.size());
    }
  if (slot.places.empty())
    return make_error(std::string(material) + " has no parameter " + std::string(name) + " in any pass drawn");
  return slot;
}

void SceneRenderer::set_parameter(const ParameterSlot& slot, std::span<const double> values) {
  for (const ParameterSlot::Place& place : slot.places)
    for (std::size_t i = 0; i < values.size() && (i + 1) * 4 <= place.size; ++i) {
      if (place.integer) {
        const auto v = std::int32_t(values[i]);
        std::memcpy(place.bytes + i * 4, &v, 4);
      } else {
        const auto v = float(values[i]);
        std::memcpy(place.bytes + i * 4, &v, 4);
      }
    }
}

Status SceneRenderer::render_frame(double time_seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& s = *impl_;
  Mat4 model;
  s.set_camera(time_seconds, model);
  const std::uint32_t width = s.columns * s.size, height = s.rows * s.size;

  KILN_TRY(submit_and_wait(*s.context, [&](VkCommandBuffer cmd) {
    // The frame and the post-process output: cleared, the views copied in, then general for compute.
    const VkClearColorValue black{};
    const VkImageSubresourceRange whole{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    for (const Image* image : {s.frame.get(), s.post_output.get()}) {
      transition(cmd, image->handle(), VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      vkCmdClearColorImage(cmd, image->handle(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &whole);
    }
    full_barrier(cmd);
    for (std::size_t i = 0; i < s.views.size(); ++i) {
      Pass& pass = s.views[i];
      s.record_view(cmd, pass, model);
      // Into its cell of the frame.
      VkImageCopy copy{};
      copy.srcSubresource = copy.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
      copy.dstOffset = {std::int32_t(i % s.columns * s.size), std::int32_t(i / s.columns * s.size), 0};
      copy.extent = {s.size, s.size, 1};
      vkCmdCopyImage(cmd, pass.color->handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, s.frame->handle(),
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
    }
    for (const Image* image : {s.frame.get(), s.post_output.get()})
      transition(cmd, image->handle(), VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                 VK_IMAGE_LAYOUT_GENERAL);
    for (Pass& pass : s.posts) {
      const runtime::ShaderInterface& interface = pass.pipeline->shaders->interface;
      const VkPipelineLayout layout = pass.pipeline->shaders->layout->handle();
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass.pipeline->pipeline);
      if (!pass.sets.empty())
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, std::uint32_t(pass.sets.size()),
                                pass.sets.data(), 0, nullptr);
      if (interface.push_constant_size > 0)
        vkCmdPushConstants(cmd, layout, vk_stages(interface.push_constant_stages), 0, interface.push_constant_size,
                           pass.push.data());
      const auto& local = interface.local_size;
      vkCmdDispatch(cmd, (width + local[0] - 1) / local[0], (height + local[1] - 1) / local[1], 1);
      full_barrier(cmd);
    }
    VkBufferImageCopy out{};
    out.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    out.imageExtent = {width, height, 1};
    for (const Image* image : {s.frame.get(), s.post_output.get()})
      transition(cmd, image->handle(), VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_GENERAL,
                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    vkCmdCopyImageToBuffer(cmd, s.frame->handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, s.frame_readback->handle(), 1,
                           &out);
    vkCmdCopyImageToBuffer(cmd, s.post_output->handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           s.post_readback->handle(), 1, &out);
    full_barrier(cmd);
  }));

  for (std::size_t i = 0; i < s.views.size(); ++i) unpack(*s.views[i].readback, s.size, s.size, views_[i]);
  unpack(*s.frame_readback, width, height, frame_);
  if (!s.posts.empty()) {
    LinearImage post;
    unpack(*s.post_readback, width, height, post);
    for (std::size_t i = 0; i < frame_.rgba.size(); ++i)
      if (i % 4 != 3) frame_.rgba[i] += post.rgba[i];
  }
  last_frame_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return {};
}

Status SceneRenderer::render_views(std::span<const std::string> materials, double time_seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& s = *impl_;
  std::vector<std::size_t> chosen;
  for (const std::string& material : materials)
    for (std::size_t i = 0; i < s.views.size(); ++i)
      if (s.views[i].material == material && std::find(chosen.begin(), chosen.end(), i) == chosen.end())
        chosen.push_back(i);
  if (chosen.empty()) return {};
  Mat4 model;
  s.set_camera(time_seconds, model);
  KILN_TRY(submit_and_wait(*s.context, [&](VkCommandBuffer cmd) {
    for (std::size_t i : chosen) s.record_view(cmd, s.views[i], model);
    full_barrier(cmd);
  }));
  for (std::size_t i : chosen) unpack(*s.views[i].readback, s.size, s.size, views_[i]);
  last_frame_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return {};
}

}  // namespace kiln::render
