#include "kiln/runtime/variant_record.h"

#include "byte_io.h"

namespace kiln::runtime {
namespace {

constexpr std::uint32_t kMagic = 0x5241564B;  // "KVAR"
constexpr std::uint32_t kSpirvMagic = 0x07230203;

}  // namespace

const StageRecord* VariantRecord::stage(std::string_view name) const {
  for (const auto& s : stages)
    if (s.stage == name) return &s;
  return nullptr;
}

std::vector<std::byte> encode_variant_record(const VariantRecord& record) {
  std::vector<std::string> reflections;
  reflections.reserve(record.stages.size());
  std::vector<StoredStage> stages;
  for (const auto& s : record.stages) {
    reflections.push_back(encode_reflection(s.reflection));
    stages.push_back({s.stage, s.file, s.spirv, reflections.back(), s.source});
  }
  return encode_variant_record(stages);
}

std::vector<std::byte> encode_variant_record(std::span<const StoredStage> stages) {
  std::size_t size = 64;
  for (const auto& s : stages)
    size += 20 + s.stage.size() + s.file.size() + s.spirv.size_bytes() + s.reflection.size() + s.source.size();
  detail::ByteWriter w;
  w.reserve(size);
  detail::write_record_header(w, kMagic, kVariantRecordVersion);
  w.u32(static_cast<std::uint32_t>(stages.size()));
  for (const auto& s : stages) {
    w.text(s.stage);
    w.text(s.file);
    w.bytes(std::as_bytes(s.spirv));
    w.text(s.reflection);
    w.text(s.source);
  }
  return w.take();
}

Result<VariantRecord> decode_variant_record(std::span<const std::byte> bytes, const std::string& where) {
  detail::ByteReader r(bytes);
  if (auto wrong = detail::check_record_header(r, kMagic, kVariantRecordVersion, "shader variant record"))
    return make_error(where + ": " + *wrong);
  VariantRecord record;
  const std::uint32_t count = r.count("stage count", 20);
  for (std::uint32_t i = 0; i < count && r.ok(); ++i) {
    StageRecord s;
    s.stage = r.text("stage name");
    s.file = r.text("stage file");
    const auto words = r.bytes("SPIR-V");
    const std::string reflection = r.text("reflection");
    s.source = r.text("backend source");
    if (!r.ok()) break;
    const std::string at = where + ": " + s.stage;
    if (words.size() % 4 != 0 || words.size() < 20)
      return make_error(at + ": SPIR-V of " + std::to_string(words.size()) + " bytes");
    s.spirv.resize(words.size() / 4);
    std::memcpy(s.spirv.data(), words.data(), words.size());
    if (s.spirv[0] != kSpirvMagic) return make_error(at + ": not SPIR-V (bad magic)");
    auto decoded = decode_reflection(reflection, at);
    if (!decoded) return decoded.error();
    s.reflection = std::move(*decoded);
    if (auto checked = check_reflection(s.reflection, s.spirv); !checked)
      return make_error(at + ": " + checked.error().message);
    record.stages.push_back(std::move(s));
  }
  if (!r.ok()) return make_error(where + ": damaged variant record: " + r.problem());
  if (!r.at_end()) return make_error(where + ": damaged variant record: bytes after the last stage");
  if (record.stages.empty()) return make_error(where + ": a variant with no stage");
  return record;
}

}  // namespace kiln::runtime
