#include "spirv_interface.h"

#include <algorithm>
#include <map>
#include <set>

namespace kiln::runtime {
namespace {

// The opcodes, decorations and storage classes read here (SPIR-V specification, unified).
enum Op : std::uint32_t {
  kOpDecorate = 71,
  kOpMemberDecorate = 72,
  kOpTypeBool = 20,
  kOpTypeInt = 21,
  kOpTypeFloat = 22,
  kOpTypeVector = 23,
  kOpTypeMatrix = 24,
  kOpTypeImage = 25,
  kOpTypeSampler = 26,
  kOpTypeSampledImage = 27,
  kOpTypeArray = 28,
  kOpTypeRuntimeArray = 29,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpConstant = 43,
  kOpSpecConstant = 50,
  kOpVariable = 59,
  kOpTypeAccelerationStructure = 5341,
};
enum Decoration : std::uint32_t {
  kBlock = 2,
  kBufferBlock = 3,
  kRowMajor = 4,
  kArrayStride = 6,
  kMatrixStride = 7,
  kBuiltIn = 11,
  kLocation = 30,
  kBinding = 33,
  kDescriptorSet = 34,
  kOffset = 35,
};
enum StorageClass : std::uint32_t {
  kUniformConstant = 0,
  kInput = 1,
  kUniform = 2,
  kPushConstant = 9,
  kStorageBuffer = 12,
};
constexpr std::uint32_t kDimSubpassData = 6;
constexpr std::uint32_t kMagic = 0x07230203;

struct Type {
  std::uint32_t op = 0;
  std::vector<std::uint32_t> operands;  // after the result id
};

struct Member {
  std::optional<std::uint32_t> offset, matrix_stride;
  bool row_major = false, builtin = false;
};

class Module {
 public:
  std::map<std::uint32_t, Type> types;
  std::map<std::uint32_t, std::pair<bool, std::uint32_t>> constants;            // id -> (specialisable, low word)
  std::map<std::uint32_t, std::map<std::uint32_t, std::uint32_t>> decorations;  // id -> decoration -> first literal
  std::map<std::uint32_t, std::map<std::uint32_t, Member>> members;             // struct -> member -> decorations
  std::vector<std::pair<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>>> variables;  // id, (type, class)

  bool decorated(std::uint32_t id, std::uint32_t d) const {
    auto it = decorations.find(id);
    return it != decorations.end() && it->second.count(d);
  }
  std::uint32_t decoration(std::uint32_t id, std::uint32_t d) const {
    auto it = decorations.find(id);
    if (it == decorations.end()) return 0;
    auto found = it->second.find(d);
    return found == it->second.end() ? 0 : found->second;
  }
  const Type* type(std::uint32_t id) const {
    auto it = types.find(id);
    return it == types.end() ? nullptr : &it->second;
  }

  // The declared size of a value of `id` inside a block; `member` carries the struct member's own
  // decorations (matrix stride, row-major). nullopt: not a type a block can hold.
  std::optional<std::uint64_t> size_of(std::uint32_t id, const Member* member, int depth) const {
    const Type* t = type(id);
    if (!t || depth > 64) return std::nullopt;
    switch (t->op) {
      case kOpTypeBool: return 4;
      case kOpTypeInt:
      case kOpTypeFloat: return t->operands.empty() ? std::nullopt : std::optional<std::uint64_t>(t->operands[0] / 8);
      case kOpTypeVector: {
        if (t->operands.size() < 2) return std::nullopt;
        auto component = size_of(t->operands[0], nullptr, depth + 1);
        if (!component) return std::nullopt;
        return *component * t->operands[1];
      }
      case kOpTypeMatrix: {
        if (t->operands.size() < 2 || !member || !member->matrix_stride) return std::nullopt;
        const Type* column = type(t->operands[0]);
        if (!column || column->op != kOpTypeVector || column->operands.size() < 2) return std::nullopt;
        return std::uint64_t(*member->matrix_stride) * (member->row_major ? column->operands[1] : t->operands[1]);
      }
      case kOpTypeArray: {
        if (t->operands.size() < 2) return std::nullopt;
        auto length = constants.find(t->operands[1]);
        if (length == constants.end()) return std::nullopt;
        return std::uint64_t(decoration(id, kArrayStride)) * length->second.second;
      }
      case kOpTypeRuntimeArray: return 0;
      case kOpTypePointer: return 8;  // a device address: never followed
      case kOpTypeStruct: return struct_size(id, depth + 1);
      default: return std::nullopt;
    }
  }

  // The type's name as the stored reflection spells it (SPIRV-Cross's base types in GLSL words).
  std::string type_name(std::uint32_t id) const {
    const Type* t = type(id);
    if (!t) return "other";
    std::uint32_t columns = 1, components = 1;
    if (t->op == kOpTypeMatrix && t->operands.size() >= 2) {
      columns = t->operands[1];
      t = type(t->operands[0]);
      if (!t) return "other";
    }
    if (t->op == kOpTypeVector && t->operands.size() >= 2) {
      components = t->operands[1];
      t = type(t->operands[0]);
      if (!t) return "other";
    }
    std::string scalar, prefix;
    const std::uint32_t width = t->operands.empty() ? 0 : t->operands[0];
    if (t->op == kOpTypeFloat && width == 32)
      scalar = "float";
    else if (t->op == kOpTypeFloat && width == 64)
      scalar = "double", prefix = "d";
    else if (t->op == kOpTypeInt && width == 32 && t->operands.size() >= 2)
      scalar = t->operands[1] ? "int" : "uint", prefix = t->operands[1] ? "i" : "u";
    else if (t->op == kOpTypeBool)
      scalar = "bool", prefix = "b";
    else
      return t->op == kOpTypeStruct ? "struct" : "other";
    if (columns > 1)
      return prefix + "mat" + std::to_string(columns) + (columns == components ? "" : "x" + std::to_string(components));
    if (components > 1) return prefix + "vec" + std::to_string(components);
    return scalar;
  }

  std::optional<std::uint64_t> struct_size(std::uint32_t id, int depth) const {
    const Type* t = type(id);
    if (!t || t->op != kOpTypeStruct || t->operands.empty()) return std::nullopt;
    static const std::map<std::uint32_t, Member> none;
    auto decorated_members = members.find(id);
    const auto& m = decorated_members == members.end() ? none : decorated_members->second;
    std::uint64_t highest = 0;
    std::size_t last = 0;
    for (std::size_t i = 0; i < t->operands.size(); ++i) {
      auto it = m.find(std::uint32_t(i));
      const std::uint64_t offset = it == m.end() || !it->second.offset ? 0 : *it->second.offset;
      if (offset > highest) highest = offset, last = i;
    }
    auto it = m.find(std::uint32_t(last));
    auto size = size_of(t->operands[last], it == m.end() ? nullptr : &it->second, depth);
    if (!size) return std::nullopt;
    return highest + *size;
  }

  bool builtin_block(std::uint32_t id) const {
    auto it = members.find(id);
    if (it == members.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(), [](const auto& m) { return m.second.builtin; });
  }
};

Result<Module> parse(std::span<const std::uint32_t> words) {
  if (words.size() < 5 || words[0] != kMagic) return make_error("not SPIR-V (bad header)");
  Module m;
  for (std::size_t at = 5; at < words.size();) {
    const std::uint32_t count = words[at] >> 16, op = words[at] & 0xffff;
    if (count == 0 || count > words.size() - at)
      return make_error("malformed SPIR-V (an instruction at word " + std::to_string(at) + " runs past the end)");
    const std::span<const std::uint32_t> in = words.subspan(at + 1, count - 1);
    at += count;
    switch (op) {
      case kOpDecorate:
        if (in.size() >= 2) m.decorations[in[0]][in[1]] = in.size() >= 3 ? in[2] : 0;
        break;
      case kOpMemberDecorate: {
        if (in.size() < 3) break;
        Member& member = m.members[in[0]][in[1]];
        const std::uint32_t value = in.size() >= 4 ? in[3] : 0;
        if (in[2] == kOffset) member.offset = value;
        if (in[2] == kMatrixStride) member.matrix_stride = value;
        if (in[2] == kRowMajor) member.row_major = true;
        if (in[2] == kBuiltIn) member.builtin = true;
        break;
      }
      case kOpTypeBool:
      case kOpTypeInt:
      case kOpTypeFloat:
      case kOpTypeVector:
      case kOpTypeMatrix:
      case kOpTypeImage:
      case kOpTypeSampler:
      case kOpTypeSampledImage:
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
      case kOpTypeStruct:
      case kOpTypePointer:
      case kOpTypeAccelerationStructure:
        if (!in.empty()) m.types[in[0]] = Type{op, std::vector<std::uint32_t>(in.begin() + 1, in.end())};
        break;
      case kOpConstant:
      case kOpSpecConstant:
        if (in.size() >= 3) m.constants[in[1]] = {op == kOpSpecConstant, in[2]};
        break;
      case kOpVariable:
        if (in.size() >= 3) m.variables.push_back({in[1], {in[0], in[2]}});
        break;
      default: break;
    }
  }
  return m;
}

}  // namespace

Result<SpirvInterface> read_spirv_interface(std::span<const std::uint32_t> words) {
  auto parsed = parse(words);
  if (!parsed) return parsed.error();
  const Module& m = *parsed;
  SpirvInterface out;
  for (const auto& [id, typed] : m.variables) {
    const auto [pointer_id, storage] = typed;
    const Type* pointer = m.type(pointer_id);
    if (!pointer || pointer->op != kOpTypePointer || pointer->operands.size() < 2) continue;
    // Strip descriptor arrays down to what each element is.
    std::uint32_t base = pointer->operands[1];
    std::uint32_t count = 1;
    bool count_known = true;
    for (int depth = 0; depth < 16; ++depth) {
      const Type* t = m.type(base);
      if (!t || (t->op != kOpTypeArray && t->op != kOpTypeRuntimeArray) || t->operands.empty()) break;
      if (t->op == kOpTypeArray) {
        auto length = t->operands.size() >= 2 ? m.constants.find(t->operands[1]) : m.constants.end();
        if (length == m.constants.end() || length->second.first)
          count_known = false;
        else
          count *= std::max<std::uint32_t>(length->second.second, 1);
      }
      base = t->operands[0];
    }
    const Type* element = m.type(base);
    if (!element) continue;
    if (storage == kInput) {
      if (!m.decorated(id, kBuiltIn) && !m.builtin_block(base))
        out.inputs.emplace_back(m.decoration(id, kLocation), m.type_name(base));
      continue;
    }
    if (storage == kPushConstant) {
      auto size = m.struct_size(base, 0);
      if (!size) return make_error("a push-constant block whose size cannot be worked out");
      out.push_constant_sizes.push_back(*size);
      continue;
    }
    DescriptorKind kind;
    std::optional<std::uint64_t> block_size;
    if (storage == kUniform || storage == kStorageBuffer) {
      if (element->op != kOpTypeStruct) continue;
      kind = storage == kStorageBuffer || m.decorated(base, kBufferBlock) ? DescriptorKind::kStorageBuffer
                                                                          : DescriptorKind::kUniformBuffer;
      block_size = m.struct_size(base, 0);
      if (!block_size) return make_error("a buffer block whose size cannot be worked out");
    } else if (storage == kUniformConstant) {
      if (element->op == kOpTypeSampledImage)
        kind = DescriptorKind::kCombinedImageSampler;
      else if (element->op == kOpTypeSampler)
        kind = DescriptorKind::kSampler;
      else if (element->op == kOpTypeAccelerationStructure)
        kind = DescriptorKind::kAccelerationStructure;
      else if (element->op == kOpTypeImage && element->operands.size() >= 6)
        kind = element->operands[1] == kDimSubpassData ? DescriptorKind::kInputAttachment
               : element->operands[5] == 2             ? DescriptorKind::kStorageImage
                                                       : DescriptorKind::kSampledImage;
      else
        continue;
    } else {
      continue;
    }
    out.bindings.push_back(
        {m.decoration(id, kDescriptorSet), m.decoration(id, kBinding), kind, count, count_known, block_size});
  }
  std::sort(out.inputs.begin(), out.inputs.end());
  return out;
}

}  // namespace kiln::runtime
