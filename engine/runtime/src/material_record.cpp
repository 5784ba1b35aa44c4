#include "kiln/runtime/material_record.h"

#include "byte_io.h"

namespace kiln::runtime {
namespace {

constexpr std::uint32_t kMagic = 0x54414D4B;  // "KMAT"

void write_strings(detail::ByteWriter& w, const std::vector<std::string>& strings) {
  w.u32(static_cast<std::uint32_t>(strings.size()));
  for (const auto& s : strings) w.text(s);
}

std::vector<std::string> read_strings(detail::ByteReader& r, const char* what) {
  std::vector<std::string> out(r.count(what, 4));
  for (auto& s : out) s = r.text(what);
  return out;
}

}  // namespace

const MaterialPass* MaterialRecord::pass(std::string_view name) const {
  for (const auto& p : passes)
    if (p.pass == name) return &p;
  return nullptr;
}

std::vector<std::byte> encode_material_record(const MaterialRecord& m) {
  detail::ByteWriter w;
  detail::write_record_header(w, kMagic, kMaterialRecordVersion);
  w.text(m.file);
  w.text(m.shader);
  write_strings(w, m.keywords);
  w.u32(static_cast<std::uint32_t>(m.params.size()));
  for (const auto& [name, values] : m.params) {
    w.text(name);
    w.u32(static_cast<std::uint32_t>(values.size()));
    for (double v : values) w.f64(v);
  }
  w.u32(static_cast<std::uint32_t>(m.textures.size()));
  for (const auto& [slot, file] : m.textures) {
    w.text(slot);
    w.text(file);
  }
  w.u32(static_cast<std::uint32_t>(m.passes.size()));
  for (const auto& p : m.passes) {
    w.text(p.pass);
    w.text(p.variant);
    w.u32(static_cast<std::uint32_t>(p.blocks.size()));
    for (const auto& b : p.blocks) {
      w.text(b.name);
      w.u32(static_cast<std::uint32_t>(b.kind));
      w.u32(b.set);
      w.u32(b.binding);
      w.bytes(b.bytes);
    }
    w.u32(static_cast<std::uint32_t>(p.textures.size()));
    for (const auto& t : p.textures) {
      w.text(t.slot);
      w.text(t.texture);
      w.u32(t.set);
      w.u32(t.binding);
    }
  }
  return w.take();
}

Result<MaterialRecord> decode_material_record(std::span<const std::byte> bytes, const std::string& where) {
  detail::ByteReader r(bytes);
  if (auto wrong = detail::check_record_header(r, kMagic, kMaterialRecordVersion, "material record"))
    return make_error(where + ": " + *wrong);
  MaterialRecord m;
  m.file = r.text("file");
  m.shader = r.text("shader");
  m.keywords = read_strings(r, "keywords");
  for (std::uint32_t i = 0, n = r.count("params", 8); i < n && r.ok(); ++i) {
    std::string name = r.text("param name");
    const std::uint32_t count = r.count("param values", 8);
    if (r.ok() && (count < 1 || count > 4)) r.fail("param values", std::to_string(count) + " values (1 to 4)");
    std::vector<double> values(r.ok() ? count : 0);
    for (double& v : values) v = r.f64("param value");
    m.params[std::move(name)] = std::move(values);
  }
  for (std::uint32_t i = 0, n = r.count("textures", 8); i < n && r.ok(); ++i) {
    std::string slot = r.text("texture slot");
    m.textures[std::move(slot)] = r.text("texture file");
  }
  for (std::uint32_t i = 0, n = r.count("passes", 16); i < n && r.ok(); ++i) {
    MaterialPass p;
    p.pass = r.text("pass");
    p.variant = r.text("variant");
    for (std::uint32_t b = 0, blocks = r.count("blocks", 20); b < blocks && r.ok(); ++b) {
      ParameterBlock block;
      block.name = r.text("block name");
      const std::uint32_t kind = r.u32("block kind");
      if (r.ok() && kind > 1) r.fail("block kind", "unknown kind " + std::to_string(kind));
      block.kind = static_cast<ParameterBlock::Kind>(kind);
      block.set = r.u32("block set");
      block.binding = r.u32("block binding");
      const auto data = r.bytes("block bytes");
      block.bytes.assign(data.begin(), data.end());
      p.blocks.push_back(std::move(block));
    }
    for (std::uint32_t t = 0, textures = r.count("texture bindings", 16); t < textures && r.ok(); ++t) {
      TextureBinding binding;
      binding.slot = r.text("texture binding slot");
      binding.texture = r.text("texture binding file");
      binding.set = r.u32("texture binding set");
      binding.binding = r.u32("texture binding binding");
      p.textures.push_back(std::move(binding));
    }
    m.passes.push_back(std::move(p));
  }
  if (!r.ok()) return make_error(where + ": damaged material record: " + r.problem());
  if (!r.at_end()) return make_error(where + ": damaged material record: bytes after the last pass");
  if (m.shader.empty() || m.passes.empty()) return make_error(where + ": a material with no shader or no pass");
  return m;
}

}  // namespace kiln::runtime
