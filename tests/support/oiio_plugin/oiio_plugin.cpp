#include <OpenImageIO/imageio.h>
#include <OpenImageIO/texture.h>

#include "oiio_plugin_api.h"

namespace {

using kiln::test::OiioPixels;

std::string read_level(const std::string& path, int level, bool as_float, OiioPixels& out) {
  OIIO::ImageSpec config;
  config.attribute("oiio:UnassociatedAlpha", 1);  // OIIO would otherwise premultiply straight alpha
  auto in = OIIO::ImageInput::open(path, &config);
  if (!in) return "OIIO cannot open " + path + ": " + OIIO::geterror();
  if (!in->seek_subimage(0, level)) return path + ": no mip level " + std::to_string(level) + ": " + in->geterror();
  const OIIO::ImageSpec spec = in->spec();
  out.width = spec.width, out.height = spec.height, out.channels = spec.nchannels;
  const std::size_t values = std::size_t(spec.width) * spec.height * spec.nchannels;
  bool ok = false;
  if (as_float) {
    out.f32.resize(values);
    ok = in->read_image(0, level, 0, spec.nchannels, OIIO::TypeDesc::FLOAT, out.f32.data());
  } else {
    out.u8.resize(values);
    ok = in->read_image(0, level, 0, spec.nchannels, OIIO::TypeDesc::UINT8, out.u8.data());
  }
  return ok ? std::string() : path + ": " + in->geterror();
}

// Never destroyed: OIIO 2.4's TextureSystem::destroy() deletes through the wrong type
// (AddressSanitizer: new-delete-type-mismatch).
void* create_texture_system(float budget_mb) {
  OIIO::TextureSystem* system = OIIO::TextureSystem::create(true);
  system->attribute("max_memory_MB", budget_mb);
  return system;
}

std::string texture(void* handle, const std::string& path, bool trilinear, const std::string& wrap,
                    const float (&st)[6], float (&rgba)[4]) {
  auto* system = static_cast<OIIO::TextureSystem*>(handle);
  OIIO::TextureOpt opt;
  opt.mipmode = trilinear ? OIIO::TextureOpt::MipModeTrilinear : OIIO::TextureOpt::MipModeNoMIP;
  opt.interpmode = OIIO::TextureOpt::InterpBilinear;
  const auto comma = wrap.find(',');
  opt.swrap = OIIO::TextureOpt::decode_wrapmode(wrap.substr(0, comma).c_str());
  opt.twrap =
      OIIO::TextureOpt::decode_wrapmode(comma == std::string::npos ? wrap.c_str() : wrap.substr(comma + 1).c_str());
  if (!system->texture(OIIO::ustring(path), opt, st[0], st[1], st[2], st[3], st[4], st[5], 4, rgba))
    return path + ": " + system->geterror();
  return {};
}

constexpr kiln::test::OiioPluginApi api{read_level, create_texture_system, texture};

}  // namespace

extern "C" __attribute__((visibility("default"))) const kiln::test::OiioPluginApi* kiln_test_oiio_api() { return &api; }
