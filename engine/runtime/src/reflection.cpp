#include "kiln/runtime/reflection.h"

#include <cstdint>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "flat_json.h"
#include "kiln/core/text.h"
#include "reflection_document.h"

namespace kiln::runtime {
namespace {

using nlohmann::json;

struct KindRow {
  DescriptorKind kind;
  std::string_view name;
  bool buffer, texture, sampler;
};

constexpr KindRow kKinds[] = {
#define KILN_DESCRIPTOR_KIND_ROW(name, stored, buffer, texture, sampler) \
  {DescriptorKind::k##name, stored, buffer, texture, sampler},
    KILN_DESCRIPTOR_KINDS(KILN_DESCRIPTOR_KIND_ROW)
#undef KILN_DESCRIPTOR_KIND_ROW
};

// The table and the enum come from one list, in one order.
const KindRow& row(DescriptorKind kind) { return kKinds[std::size_t(kind)]; }

constexpr std::string_view kRayVariableKinds[] = {
#define KILN_RAY_VARIABLE_NAME(name, stored) stored,
    KILN_RAY_VARIABLE_KINDS(KILN_RAY_VARIABLE_NAME)
#undef KILN_RAY_VARIABLE_NAME
};

constexpr std::string_view kBackends[] = {
#define KILN_BACKEND_NAME(name, stored) stored,
    KILN_BACKENDS(KILN_BACKEND_NAME)
#undef KILN_BACKEND_NAME
};

// A reading failure at a JSON pointer; turned into an error at decode_reflection's boundary.
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The JSON pointer of the value at `target` inside `node` (whose pointer is `at`), if it is there.
std::optional<std::string> pointer_to(const json& node, const json* target, const std::string& at) {
  if (&node == target) return at;
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it)
      if (auto found = pointer_to(it.value(), target, at + "/" + it.key())) return found;
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      if (auto found = pointer_to(node[i], target, at + "/" + std::to_string(i))) return found;
  }
  return std::nullopt;
}

// A read-only view of one JSON value of a document. Where it sits (its JSON pointer) is worked out
// only for an error: a reflection is read far more often than it is wrong.
class DomField {
 public:
  DomField(const json& value, const json& root) : value_(value), root_(root) {}

  DomField at(const char* key) const {
    if (!value_.is_object()) fail("not an object");
    const auto it = value_.find(key);
    if (it == value_.end()) throw Malformed(pointer() + "/" + key + ": missing");
    return DomField(*it, root_);
  }
  bool has(const char* key) const { return value_.is_object() && value_.contains(key); }
  std::vector<DomField> items() const {
    if (!value_.is_array()) fail("not a list");
    std::vector<DomField> out;
    out.reserve(value_.size());
    for (std::size_t i = 0; i < value_.size(); ++i) out.emplace_back(value_[i], root_);
    return out;
  }
  std::uint32_t u32() const {
    if (!value_.is_number_unsigned() || value_.get<std::uint64_t>() > UINT32_MAX)
      fail("not a whole number from 0 to 4294967295");
    return std::uint32_t(value_.get<std::uint64_t>());
  }
  std::string text() const {
    if (!value_.is_string()) fail("not a string");
    return value_.get<std::string>();
  }
  bool flag() const {
    if (!value_.is_boolean()) fail("not true or false");
    return value_.get<bool>();
  }
  std::optional<std::uint32_t> optional_u32(const char* key) const {
    return has(key) ? std::optional(at(key).u32()) : std::nullopt;
  }
  [[noreturn]] void fail(const std::string& what) const {
    const std::string at = pointer();
    throw Malformed((at.empty() ? "/" : at) + ": " + what);
  }

 private:
  std::string pointer() const { return pointer_to(root_, &value_, "").value_or(""); }

  const json& value_;
  const json& root_;
};

// Thrown by FlatField where DomField would fail: the text is then read again by DomField, which
// says where and what.
struct Declined {};

// The same view over a FlatDocument (flat_json.h): what the stored reflection usually is, read
// without a DOM. It fails without a message; decode_reflection then reads the text with DomField.
class FlatField {
 public:
  FlatField(const FlatDocument& doc, std::uint32_t index) : doc_(&doc), index_(index) {}

  FlatField at(const char* key) const {
    if (auto found = find(key)) return *found;
    throw Declined{};
  }
  bool has(const char* key) const { return find(key).has_value(); }
  std::vector<FlatField> items() const {
    if (node().kind != FlatNode::Kind::kArray) throw Declined{};
    std::vector<FlatField> out;
    for (std::uint32_t i = index_ + 1; i < node().end; i = doc_->nodes()[i].end) out.emplace_back(*doc_, i);
    return out;
  }
  std::uint32_t u32() const {
    if (node().kind != FlatNode::Kind::kNumber || node().number > UINT32_MAX) throw Declined{};
    return std::uint32_t(node().number);
  }
  std::string text() const {
    if (node().kind != FlatNode::Kind::kString) throw Declined{};
    return std::string(node().text);
  }
  bool flag() const {
    if (node().kind != FlatNode::Kind::kTrue && node().kind != FlatNode::Kind::kFalse) throw Declined{};
    return node().kind == FlatNode::Kind::kTrue;
  }
  std::optional<std::uint32_t> optional_u32(const char* key) const {
    return has(key) ? std::optional(at(key).u32()) : std::nullopt;
  }
  [[noreturn]] void fail(const std::string&) const { throw Declined{}; }

 private:
  const FlatNode& node() const { return doc_->nodes()[index_]; }
  std::optional<FlatField> find(const char* key) const {
    if (node().kind != FlatNode::Kind::kObject) throw Declined{};
    for (std::uint32_t i = index_ + 1; i < node().end; i = doc_->nodes()[i].end)
      if (doc_->nodes()[i].key == key) return FlatField(*doc_, i);
    return std::nullopt;
  }

  const FlatDocument* doc_;
  std::uint32_t index_;
};

json encode_members(const std::vector<BlockMember>& members) {
  json out = json::array();
  for (const BlockMember& m : members) {
    json j = {{"name", m.name},       {"type", m.type},   {"components", m.components},
              {"columns", m.columns}, {"count", m.count}, {"offset", m.offset},
              {"size", m.size}};
    if (m.array_stride) j["array_stride"] = m.array_stride;
    if (m.matrix_stride) j["matrix_stride"] = m.matrix_stride;
    out.push_back(std::move(j));
  }
  return out;
}

template <class Field>
std::vector<BlockMember> decode_members(const Field& list) {
  std::vector<BlockMember> out;
  for (const Field& m : list.items())
    out.push_back({m.at("name").text(), m.at("type").text(), m.at("components").u32(), m.at("columns").u32(),
                   m.at("count").u32(), m.at("offset").u32(), m.at("size").u32(),
                   m.optional_u32("array_stride").value_or(0), m.optional_u32("matrix_stride").value_or(0)});
  return out;
}

// A backend's slot is stored under the backend's name ("msl": {"buffer": 0}).
void encode_slot(const BackendSlot& slot, json& out) {
  if (slot.backend == Backend::kSpirv) return;
  json j = json::object();
  const auto put = [&j](const char* key, const std::optional<std::uint32_t>& v) {
    if (v) j[key] = *v;
  };
  put("binding", slot.binding);
  put("buffer", slot.buffer);
  put("texture", slot.texture);
  put("sampler", slot.sampler);
  put("register", slot.register_index);
  put("space", slot.space);
  out[std::string(backend_name(slot.backend))] = std::move(j);
}

template <class Field>
BackendSlot decode_slot(const Field& owner) {
  BackendSlot slot;
  for (std::size_t b = 1; b < std::size(kBackends); ++b) {
    const std::string name(kBackends[b]);
    if (!owner.has(name.c_str())) continue;
    if (slot.backend != Backend::kSpirv) owner.fail("slots of two backends");
    const Field s = owner.at(name.c_str());
    slot = {Backend(b),
            s.optional_u32("binding"),
            s.optional_u32("buffer"),
            s.optional_u32("texture"),
            s.optional_u32("sampler"),
            s.optional_u32("register"),
            s.optional_u32("space")};
  }
  return slot;
}

json encode_variables(const std::vector<InterfaceVariable>& vars) {
  json out = json::array();
  for (const auto& v : vars) {
    json j = {{"location", v.location}, {"name", v.name}, {"type", v.type}};
    if (v.per_primitive) j["per_primitive"] = true;
    out.push_back(std::move(j));
  }
  return out;
}

template <class Field>
std::vector<InterfaceVariable> decode_variables(const Field& list) {
  std::vector<InterfaceVariable> out;
  for (const Field& v : list.items())
    out.push_back({v.at("location").u32(), v.at("name").text(), v.at("type").text(),
                   v.has("per_primitive") && v.at("per_primitive").flag()});
  return out;
}

json encode_struct_variable(const StructVariable& v) {
  return {{"name", v.name}, {"type", v.type}, {"size", v.size}, {"members", encode_members(v.members)}};
}

template <class Field>
StructVariable decode_struct_variable(const Field& f) {
  return {f.at("name").text(), f.at("type").text(), f.at("size").u32(), decode_members(f.at("members"))};
}

template <class Field>
StageReflection decode(const Field& r) {
  if (const std::uint32_t format = r.at("format").u32(); format != kReflectionFormat)
    throw Malformed("format " + std::to_string(format) + ", this Kiln reads format " +
                    std::to_string(kReflectionFormat) + ": build it again");
  StageReflection out;
  out.entry_point = r.at("entry_point").text();
  for (const Field& b : r.at("bindings").items()) {
    ReflectedBinding d;
    d.set = b.at("set").u32();
    d.binding = b.at("binding").u32();
    d.name = b.at("name").text();
    const Field kind = b.at("kind");
    const auto k = descriptor_kind_named(kind.text());
    if (!k) kind.fail("descriptors of kind '" + kind.text() + "' are not known");
    d.kind = *k;
    d.count = b.at("count").u32();
    d.block_size = b.optional_u32("block_size");
    if (b.has("members")) d.members = decode_members(b.at("members"));
    d.slot = decode_slot(b);
    out.bindings.push_back(std::move(d));
  }
  for (const Field& p : r.at("push_constants").items()) {
    PushConstantBlock block{
        p.at("name").text(), p.at("block").text(), p.at("size").u32(), decode_members(p.at("members")), {},
        decode_slot(p)};
    for (const Field& range : p.at("ranges").items())
      block.ranges.push_back({range.at("member").u32(), range.at("offset").u32(), range.at("size").u32()});
    out.push_constants.push_back(std::move(block));
  }
  out.inputs = decode_variables(r.at("inputs"));
  out.outputs = decode_variables(r.at("outputs"));
  for (const Field& c : r.at("specialization_constants").items())
    out.specialization_constants.push_back({c.at("id").u32(), c.at("name").text(), c.at("type").text()});
  if (r.has("local_size")) {
    const auto size = r.at("local_size").items();
    if (size.size() != 3) r.at("local_size").fail("not three numbers");
    out.local_size = {size[0].u32(), size[1].u32(), size[2].u32()};
  }
  if (r.has("ray_variables")) {
    for (const Field& v : r.at("ray_variables").items()) {
      const Field kind = v.at("kind");
      const auto k = ray_variable_kind_named(kind.text());
      if (!k) kind.fail("'" + kind.text() + "' is not a ray-tracing variable kind");
      out.ray_variables.push_back({*k, v.at("name").text(), v.at("type").text(), v.at("size").u32()});
    }
  }
  if (r.has("shader_record")) out.shader_record = decode_struct_variable(r.at("shader_record"));
  if (r.has("task_payload")) out.task_payload = decode_struct_variable(r.at("task_payload"));
  if (r.has("mesh_output")) {
    const Field m = r.at("mesh_output");
    out.mesh_output = MeshOutput{m.at("max_vertices").u32(), m.at("max_primitives").u32(), m.at("primitive").text()};
    if (out.mesh_output->primitive != "triangles" && out.mesh_output->primitive != "lines" &&
        out.mesh_output->primitive != "points")
      m.at("primitive").fail("not triangles, lines or points");
  }
  if (r.has("unavailable")) {
    out.unavailable = r.at("unavailable").text();
    if (out.unavailable.empty()) r.at("unavailable").fail("empty: say why, or leave it out");
  }
  return out;
}

}  // namespace

std::string_view descriptor_kind_name(DescriptorKind kind) { return row(kind).name; }

std::string_view ray_variable_kind_name(RayVariableKind kind) { return kRayVariableKinds[std::size_t(kind)]; }

std::optional<RayVariableKind> ray_variable_kind_named(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kRayVariableKinds); ++i)
    if (kRayVariableKinds[i] == name) return RayVariableKind(i);
  return std::nullopt;
}

std::optional<DescriptorKind> descriptor_kind_named(std::string_view name) {
  for (const KindRow& r : kKinds)
    if (r.name == name) return r.kind;
  return std::nullopt;
}

bool takes_buffer_slot(DescriptorKind kind) { return row(kind).buffer; }
bool takes_texture_slot(DescriptorKind kind) { return row(kind).texture; }
bool takes_sampler_slot(DescriptorKind kind) { return row(kind).sampler; }

std::string_view backend_name(Backend backend) { return kBackends[std::size_t(backend)]; }

std::optional<Backend> backend_named(std::string_view name) {
  const auto index = name_index(kBackends, name);
  return index ? std::optional(Backend(*index)) : std::nullopt;
}

std::string backend_names() { return listed_names(kBackends); }

std::string encode_reflection(const StageReflection& r) {
  json bindings = json::array();
  for (const ReflectedBinding& b : r.bindings) {
    json j = {{"set", b.set},
              {"binding", b.binding},
              {"name", b.name},
              {"kind", descriptor_kind_name(b.kind)},
              {"count", b.count}};
    if (b.block_size) j["block_size"] = *b.block_size;
    if (b.block_size || !b.members.empty()) j["members"] = encode_members(b.members);
    encode_slot(b.slot, j);
    bindings.push_back(std::move(j));
  }
  json push = json::array();
  for (const PushConstantBlock& p : r.push_constants) {
    json ranges = json::array();
    for (const auto& range : p.ranges)
      ranges.push_back({{"member", range.member}, {"offset", range.offset}, {"size", range.size}});
    json j = {{"name", p.name},
              {"block", p.block},
              {"size", p.size},
              {"members", encode_members(p.members)},
              {"ranges", std::move(ranges)}};
    encode_slot(p.slot, j);
    push.push_back(std::move(j));
  }
  json spec = json::array();
  for (const auto& c : r.specialization_constants) spec.push_back({{"id", c.id}, {"name", c.name}, {"type", c.type}});
  json out = {{"format", kReflectionFormat},
              {"entry_point", r.entry_point},
              {"bindings", std::move(bindings)},
              {"push_constants", std::move(push)},
              {"inputs", encode_variables(r.inputs)},
              {"outputs", encode_variables(r.outputs)},
              {"specialization_constants", std::move(spec)}};
  if (r.local_size) out["local_size"] = *r.local_size;
  if (!r.ray_variables.empty()) {
    json vars = json::array();
    for (const RayVariable& v : r.ray_variables)
      vars.push_back({{"kind", ray_variable_kind_name(v.kind)}, {"name", v.name}, {"type", v.type}, {"size", v.size}});
    out["ray_variables"] = std::move(vars);
  }
  if (r.shader_record) out["shader_record"] = encode_struct_variable(*r.shader_record);
  if (r.task_payload) out["task_payload"] = encode_struct_variable(*r.task_payload);
  if (r.mesh_output)
    out["mesh_output"] = {{"max_vertices", r.mesh_output->max_vertices},
                          {"max_primitives", r.mesh_output->max_primitives},
                          {"primitive", r.mesh_output->primitive}};
  if (!r.unavailable.empty()) out["unavailable"] = r.unavailable;
  // Names come from the SPIR-V: bytes that are not UTF-8 are written replaced, never thrown on.
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<StageReflection> decode_reflection(std::string_view text, const std::string& where) {
  // Most text is as encode_reflection wrote it: read flat. Anything else, and every error, is read
  // again below, by nlohmann's parser, for the message.
  if (auto flat = decode_reflection_flat(text)) return std::move(*flat);
  return decode_reflection_document(text, where);
}

std::optional<StageReflection> decode_reflection_flat(std::string_view text) {
  const auto flat = FlatDocument::parse(text);
  if (!flat) return std::nullopt;
  try {
    return decode(FlatField(*flat, 0));
  } catch (const Declined&) {
  } catch (const Malformed&) {}
  return std::nullopt;
}

Result<StageReflection> decode_reflection_document(std::string_view text, const std::string& where) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return make_error(where + ": the reflection is not JSON");
  try {
    return decode(DomField(doc, doc));
  } catch (const Malformed& e) {
    return make_error(where + ": the reflection is not what Kiln writes: " + e.what());
  }
}

}  // namespace kiln::runtime
