#pragma once
// The sample scene of a cooked set: every material with a Forward pipeline drawn on a lit sphere in
// its own view (its preview), the views side by side in one frame, and every compute material
// (a post-process pass) run over the frame, its output added to it. Parameter blocks start as the
// cook laid them out and can be changed between frames by name (resolved once: set_parameter with
// a ParameterSlot costs a copy); textures come from the textures pack, every mip level.
//
// Descriptors are bound from each variant's reflection: a parameter block of the material where the
// record has one, the block named Camera to the view's camera, a storage buffer to identity joint
// matrices, a sampler to the material's texture or a stand-in (white; a flat normal for a slot
// named like a normal map), a compute pass's first storage image to the frame and the rest to its
// output.
//
// Colour is linear and premultiplied; to_srgb8() makes a picture of it over black.
//
// A renderer kept warm (an editor's) is made once and shown each change of its source: the
// camera, joints, sphere, stand-ins and uploaded textures stay (forget_texture drops one that
// changed), and render_views draws only the views asked for, in that order.
//
// Thread-safety: owned and used by one thread (it submits to the context's queue).

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/render/gpu_resources.h"
#include "kiln/render/gpu_texture.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/render/scene_source.h"
#include "kiln/textures/image.h"

namespace kiln::render {

struct SceneOptions {
  std::uint32_t view_size = 256;  // pixels per side of each material's view
  bool decode_textures = false;   // decode block formats the device cannot sample (else refuse them)
};

// A texture the scene uploaded: the format it shipped in, and whether it had to be decoded.
struct UploadedTexture {
  std::string file;
  std::string format;
  bool decoded = false;
  std::uint32_t levels = 0;  // mip levels uploaded
};

struct LinearImage {
  std::uint32_t width = 0, height = 0;
  std::vector<float> rgba;  // linear, premultiplied
  const float* at(std::uint32_t x, std::uint32_t y) const { return &rgba[(std::size_t(y) * width + x) * 4]; }
};

// RGBA8, sRGB-encoded, composited over black (alpha 255).
textures::Image to_srgb8(const LinearImage& image);

class SceneRenderer {
 public:
  // A renderer showing every material of `source` with `pipelines` (built from the same source).
  static Result<std::unique_ptr<SceneRenderer>> create(const VulkanContext& context, const SceneSource& source,
                                                       const PipelineSet& pipelines, SceneOptions options = {});
  // A renderer showing nothing yet, to be kept warm.
  static Result<std::unique_ptr<SceneRenderer>> create(const VulkanContext& context, SceneOptions options = {});
  // Shows every material of `source` as `pipelines` (updated from it) has them; what was shown
  // before is let go (parameter slots found before are no longer valid). On an error nothing is
  // shown.
  Status show(const SceneSource& source, const PipelineSet& pipelines);
  // The next show uploads `file` again from its source.
  void forget_texture(const std::string& file);
  ~SceneRenderer();
  SceneRenderer(const SceneRenderer&) = delete;
  SceneRenderer& operator=(const SceneRenderer&) = delete;

  // Where a material's parameter lives: every block of every pass that declares it.
  struct ParameterSlot {
    struct Place {
      std::byte* bytes;  // in a mapped buffer or a push-constant copy
      std::uint32_t size;
      bool integer;
    };
    std::vector<Place> places;
    std::uint32_t components = 0;
  };
  // Errors name the material and the parameter ("materials/x.json has no parameter y").
  Result<ParameterSlot> find_parameter(std::string_view material, std::string_view name);
  static void set_parameter(const ParameterSlot& slot, std::span<const double> values);

  // Draws every view, composes the frame, runs the post-process passes, and reads all of it back.
  Status render_frame(double time_seconds);
  // Draws the views of `materials` alone (no frame, no post-process) and reads them back.
  Status render_views(std::span<const std::string> materials, double time_seconds);

  const std::vector<std::string>& drawn() const { return drawn_names_; }  // materials with a view
  const LinearImage& view(std::size_t i) const { return views_.at(i); }
  const LinearImage& frame() const { return frame_; }
  double last_frame_ms() const { return last_frame_ms_; }
  // Every texture uploaded so far, by file.
  std::vector<UploadedTexture> uploaded_textures() const;

  struct Impl;

 private:
  SceneRenderer() = default;
  Status show_passes(const SceneSource& source, const PipelineSet& pipelines);
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> drawn_names_;
  std::vector<LinearImage> views_;
  LinearImage frame_;
  double last_frame_ms_ = 0;
};

// Writes view `view` of `scene` as <dir>/<material path>.png ("materials/brick.json" becomes
// dir/materials/brick.png), directories made as needed; the picture's path relative to `dir`.
Result<std::filesystem::path> write_view_picture(const SceneRenderer& scene, std::size_t view,
                                                 const std::filesystem::path& dir,
                                                 textures::PngWriteOptions options = {});

}  // namespace kiln::render
