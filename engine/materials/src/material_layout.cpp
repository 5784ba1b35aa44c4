#include "kiln/core/text.h"
#include "kiln/materials/material_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "kiln/core/json_document.h"

namespace kiln::materials {
namespace {

// "vec3" -> "float", "ivec2" -> "int", "uint" -> "uint".
std::string base_type(const std::string& type) {
  if (type == "float" || type == "int" || type == "uint" || type == "bool" || type == "double") return type;
  if (type.size() >= 4 && type.substr(type.size() - 4, 3) == "vec") {
    switch (type[0]) {
      case 'v': return "float";
      case 'i': return "int";
      case 'u': return "uint";
      case 'b': return "bool";
      case 'd': return "double";
    }
  }
  return type;
}

// A scalar or vector of float, int, uint or bool: what a material parameter can set.
bool settable(const runtime::BlockMember& m) {
  static const std::set<std::string> bases = {"float", "int", "uint", "bool"};
  return m.columns == 1 && m.count == 0 && bases.count(base_type(m.type)) > 0;
}

using Member = runtime::BlockMember;

struct Block {
  std::string name;
  runtime::ParameterBlock::Kind kind = runtime::ParameterBlock::Kind::kUniformBuffer;
  std::uint32_t set = 0, binding = 0, size = 0;
  std::vector<Member> members;
};

struct Sampler {
  std::string name;
  std::uint32_t set = 0, binding = 0;
};

// What one variant (all its stages) offers a material; a block seen in several stages counts once.
struct Interface {
  std::vector<Block> blocks;
  std::vector<Sampler> samplers;        // what a texture slot names: sampled images
  std::vector<Sampler> sampler_states;  // separate samplers (HLSL SamplerState, GLSL sampler)
};

// The separate sampler that samples slot `slot` with its texture's own sampler: `sampler_<slot>`.
std::string paired_sampler_name(const std::string& slot) { return "sampler_" + slot; }

// Blocks past this are refused: no parameter block a renderer copies is near it, and the layout
// allocates the block's size.
constexpr std::uint32_t kMaxBlockSize = 1u << 20;

Result<Interface> read_interface(const std::string& variant,
                                 const std::vector<const runtime::StageReflection*>& stages) {
  Interface out;
  for (const runtime::StageReflection* r : stages) {
    if (!r->unavailable.empty())
      return make_error("variant " + variant +
                        " has a stage without reflection, so its parameters cannot be laid out (" + r->unavailable +
                        ")");
    for (const runtime::ReflectedBinding& b : r->bindings) {
      if (b.kind == runtime::DescriptorKind::kUniformBuffer) {
        if (std::any_of(out.blocks.begin(), out.blocks.end(), [&](const Block& o) {
              return o.kind == runtime::ParameterBlock::Kind::kUniformBuffer && o.set == b.set &&
                     o.binding == b.binding;
            }))
          continue;
        out.blocks.push_back({b.name, runtime::ParameterBlock::Kind::kUniformBuffer, b.set, b.binding,
                              b.block_size.value_or(0), b.members});
      } else if (b.kind == runtime::DescriptorKind::kCombinedImageSampler ||
                 b.kind == runtime::DescriptorKind::kSampledImage) {
        if (std::none_of(out.samplers.begin(), out.samplers.end(), [&](const Sampler& s) { return s.name == b.name; }))
          out.samplers.push_back({b.name, b.set, b.binding});
      } else if (b.kind == runtime::DescriptorKind::kSampler) {
        if (std::none_of(out.sampler_states.begin(), out.sampler_states.end(),
                         [&](const Sampler& s) { return s.name == b.name; }))
          out.sampler_states.push_back({b.name, b.set, b.binding});
      }
    }
    for (const runtime::PushConstantBlock& p : r->push_constants) {
      if (std::any_of(out.blocks.begin(), out.blocks.end(),
                      [&](const Block& o) { return o.kind == runtime::ParameterBlock::Kind::kPushConstant; }))
        continue;  // one push-constant block per pipeline, shared by its stages
      out.blocks.push_back(
          {p.block.empty() ? p.name : p.block, runtime::ParameterBlock::Kind::kPushConstant, 0, 0, p.size, p.members});
    }
  }
  for (const Block& b : out.blocks) {
    if (b.size > kMaxBlockSize)
      return make_error("variant " + variant + ": block " + b.name + " of " + std::to_string(b.size) +
                        " bytes (at most 1 MiB)");
    // Parameters are written at the members' offsets into a buffer of the block's size.
    for (const Member& m : b.members)
      if (m.offset > b.size || m.size > b.size - m.offset)
        return make_error("variant " + variant + ": block " + b.name + ": member " + m.name + " (" +
                          std::to_string(m.size) + " bytes at offset " + std::to_string(m.offset) +
                          ") lies outside the block's " + std::to_string(b.size) + " bytes");
  }
  return out;
}

// The members `param` names in `blocks`: "member" in any block, "Block.member" in that block.
std::vector<std::pair<const Block*, const Member*>> find_members(const std::string& param,
                                                                 const std::vector<Block>& blocks) {
  std::vector<std::pair<const Block*, const Member*>> out;
  const auto dot = param.find('.');
  for (const Block& b : blocks)
    for (const Member& m : b.members) {
      const bool named = dot == std::string::npos ? m.name == param
                                                  : b.name == param.substr(0, dot) && m.name == param.substr(dot + 1);
      if (named) out.emplace_back(&b, &m);
    }
  return out;
}

void write_value(std::vector<std::byte>& bytes, std::size_t offset, const std::string& base, double v) {
  std::byte raw[4];
  if (base == "float") {
    const float f = static_cast<float>(v);
    std::memcpy(raw, &f, 4);
  } else if (base == "int") {
    const std::int32_t i = static_cast<std::int32_t>(v);
    std::memcpy(raw, &i, 4);
  } else {  // uint, bool
    const std::uint32_t u = static_cast<std::uint32_t>(v);
    std::memcpy(raw, &u, 4);
  }
  if (offset <= bytes.size() && bytes.size() - offset >= 4) std::memcpy(bytes.data() + offset, raw, 4);
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::string suggestion(const std::string& name, const std::vector<std::string>& legal) {
  const std::string near = closest_name(name, legal);
  return " (" + std::string(legal.size() == 1 ? "the only one is " : "legal: ") + listed(legal) +
         (near.empty() || legal.size() == 1 ? "" : "; did you mean '" + near + "'?") + ")";
}

}  // namespace

Status lay_out_material(const Material& material, const VariantReflections& reflections,
                        runtime::MaterialRecord& record) {
  std::vector<std::string> problems;
  std::vector<Interface> interfaces;
  for (const auto& pass : record.passes) {
    auto it = reflections.find(pass.variant);
    auto read = it == reflections.end() ? Result<Interface>(make_error("variant " + pass.variant + " was not built"))
                                        : read_interface(pass.variant, it->second);
    if (!read) return make_error(material.file + ": " + read.error().message);
    interfaces.push_back(std::move(*read));
  }
  // The names a material may use, for messages: settable members and sampled images of any pass.
  std::set<std::string> param_names, slot_names;
  for (const auto& i : interfaces) {
    for (const auto& b : i.blocks)
      for (const auto& m : b.members)
        if (settable(m)) param_names.insert(m.name);
    for (const auto& s : i.samplers) slot_names.insert(s.name);
  }
  const std::vector<std::string> legal_params(param_names.begin(), param_names.end());
  const std::vector<std::string> legal_slots(slot_names.begin(), slot_names.end());

  for (std::size_t p = 0; p < record.passes.size(); ++p) {
    record.passes[p].blocks.clear();
    record.passes[p].textures.clear();
  }
  for (const auto& [param, values] : material.params) {
    const std::string at = material.file + ": /params/" + json_pointer_token(param) + ": ";
    bool found = false, wrong = false;
    for (std::size_t p = 0; p < record.passes.size() && !wrong; ++p) {
      const auto members = find_members(param, interfaces[p].blocks);
      if (members.size() > 1) {
        problems.push_back(at + "several blocks of shader " + material.shader + " declare '" + param +
                           "': name one as Block.member (" + members[0].first->name + "." + param + ", " +
                           members[1].first->name + "." + param + ")");
        wrong = true;
        break;
      }
      if (members.empty()) continue;
      const auto& [block, member] = members[0];
      found = true;
      if (!settable(*member) || member->components != values.size()) {
        problems.push_back(at + "shader " + material.shader + " declares '" + param + "' as " + member->type +
                           (member->count ? "[" + std::to_string(member->count) + "]" : "") + ", the material gives " +
                           std::to_string(values.size()) + (values.size() == 1 ? " number" : " numbers"));
        wrong = true;
        break;
      }
      if (base_type(member->type) == "float") {
        // A float holds magnitudes from about 1.4e-45 to 3.4e38: beyond them a value would become
        // infinity or zero without a word.
        for (std::size_t c = 0; c < values.size() && !wrong; ++c) {
          const double v = values[c], magnitude = std::fabs(v);
          if (magnitude <= double(std::numeric_limits<float>::max()) &&
              (v == 0 || magnitude >= double(std::numeric_limits<float>::denorm_min()) / 2))
            continue;
          const std::string pointer = material.file + ": /params/" + json_pointer_token(param) +
                                      (values.size() > 1 ? "/" + std::to_string(c) : "");
          char shown[32];
          std::snprintf(shown, sizeof shown, "%g", v);
          problems.push_back(pointer + ": " + shown + " is outside the range of a float (" + member->type + " '" +
                             param + "' of shader " + material.shader +
                             " takes magnitudes up to 3.4e38 and from 1.4e-45)");
          wrong = true;
        }
        if (wrong) break;
      } else {
        // Integer members take integers in their range; anything else would be converted silently.
        const double lo = base_type(member->type) == "int" ? -2147483648.0 : 0.0;
        const double hi = base_type(member->type) == "int"    ? 2147483647.0
                          : base_type(member->type) == "bool" ? 1.0
                                                              : 4294967295.0;
        if (std::any_of(values.begin(), values.end(),
                        [&](double v) { return v != std::floor(v) || v < lo || v > hi; })) {
          problems.push_back(at + "shader " + material.shader + " declares '" + param + "' as " + member->type +
                             ": expected whole numbers from " + std::to_string(std::int64_t(lo)) + " to " +
                             std::to_string(std::int64_t(hi)));
          wrong = true;
          break;
        }
      }
      auto& blocks = record.passes[p].blocks;
      const auto& wanted = block;  // structured bindings are not capturable by clang 14
      auto target = std::find_if(blocks.begin(), blocks.end(), [&wanted](const runtime::ParameterBlock& b) {
        return b.kind == wanted->kind && b.set == wanted->set && b.binding == wanted->binding && b.name == wanted->name;
      });
      if (target == blocks.end())
        target = blocks.insert(
            blocks.end(), {block->name, block->kind, block->set, block->binding, std::vector<std::byte>(block->size)});
      for (std::size_t c = 0; c < values.size(); ++c)
        write_value(target->bytes, std::size_t(member->offset) + c * 4, base_type(member->type), values[c]);
    }
    if (!found && !wrong)
      problems.push_back(at + "shader " + material.shader + " has no parameter '" + param + "'" +
                         suggestion(param, legal_params));
  }
  for (const auto& [slot, texture] : material.textures) {
    bool found = false;
    const std::string& shipped = record.textures.count(slot) ? record.textures.at(slot) : texture;
    for (std::size_t p = 0; p < record.passes.size(); ++p)
      for (const auto& s : interfaces[p].samplers)
        if (s.name == slot) {
          found = true;
          record.passes[p].textures.push_back({slot, shipped, s.set, s.binding});
          // A separate image's own sampler, where the shader declares one by name: the texture's
          // filtering and wrap then apply, as they do for a combined image sampler.
          for (const auto& state : interfaces[p].sampler_states)
            if (state.name == paired_sampler_name(slot))
              record.passes[p].textures.push_back({slot, shipped, state.set, state.binding});
        }
    if (!found)
      problems.push_back(material.file + ": /textures/" + json_pointer_token(slot) + ": shader " + material.shader +
                         " has no texture slot '" + slot + "'" + suggestion(slot, legal_slots));
  }
  if (!problems.empty()) {
    std::string message;
    for (const auto& line : problems) message += (message.empty() ? "" : "\n") + line;
    return make_error(message);
  }
  return {};
}

}  // namespace kiln::materials
