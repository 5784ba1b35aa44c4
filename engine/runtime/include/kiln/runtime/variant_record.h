#pragma once
// A shader variant as the shaders pack stores it: per stage, in stage order, the stage name
// ("vert", "frag", "comp", ...), the project file it was compiled from, its SPIR-V words and its
// reflection (reflection.h, stored as encode_reflection writes it), and for a cross-compiled target
// the backend's source.
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/reflection.h"

namespace kiln::runtime {

inline constexpr std::uint32_t kVariantRecordVersion = 3;

struct StageRecord {
  std::string stage;
  std::string file;
  std::vector<std::uint32_t> spirv;
  StageReflection reflection;
  std::string source;  // the backend's text (GLSL, ESSL, HLSL, MSL); empty for a SPIR-V target
};

struct VariantRecord {
  std::vector<StageRecord> stages;
  const StageRecord* stage(std::string_view name) const;  // nullptr when the variant has no such stage
};

std::vector<std::byte> encode_variant_record(const VariantRecord& record);

// A stage as the record stores it, its reflection already in the stored form (encode_reflection's
// text): a caller that keeps that text writes a record without encoding the reflection again.
struct StoredStage {
  std::string_view stage, file;
  std::span<const std::uint32_t> spirv;
  std::string_view reflection;
  std::string_view source;
};
std::vector<std::byte> encode_variant_record(std::span<const StoredStage> stages);
// Checks the layout, every stage's SPIR-V header, and its reflection: readable, and describing
// what the SPIR-V declares (check_reflection). Errors start with `where` (the pack and the entry)
// and name the stage.
Result<VariantRecord> decode_variant_record(std::span<const std::byte> bytes, const std::string& where);

}  // namespace kiln::runtime
