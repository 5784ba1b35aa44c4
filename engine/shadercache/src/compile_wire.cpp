#include "compile_wire.h"

#include <cstring>

namespace kiln::shadercache::wire {
namespace fs = std::filesystem;
namespace {

using Writer = core::FieldWriter;
using Reader = core::FieldReader;

}  // namespace

namespace {

void write_input(Writer& w, const GlslInput& input) {
  w.str(input.file.string());
  w.str(input.source);
  w.u8(std::uint8_t(input.stage));
  w.u8(std::uint8_t(input.language));
  w.str(input.entry);
  w.strings(input.defines);
  std::vector<std::string> dirs, roots;
  for (const auto& d : input.include_dirs) dirs.push_back(d.string());
  for (const auto& r : input.include_roots) roots.push_back(r.string());
  w.strings(dirs);
  w.strings(roots);
  w.u8(std::uint8_t(input.target));
  w.u8(input.snapshot ? 1 : 0);
  if (input.snapshot) {
    w.u32(std::uint32_t(input.snapshot->size()));
    for (const auto& [path, text] : *input.snapshot) {
      w.str(path.string());
      w.str(text);
    }
  }
}

bool read_input(Reader& r, Request& req) {
  GlslInput& in = req.input;
  std::string file;
  std::uint8_t stage = 0, language = 0, target = 0, has_snapshot = 0;
  std::vector<std::string> dirs, roots;
  if (!r.str(file) || !r.str(in.source) || !r.u8(stage) || !r.u8(language) || !r.str(in.entry) ||
      !r.strings(in.defines) || !r.strings(dirs) || !r.strings(roots) || !r.u8(target) || !r.u8(has_snapshot))
    return false;
  if (stage >= runtime::kShaderStageCount || language > std::uint8_t(SourceLanguage::kHlsl) ||
      target >= runtime::kTargetEnvCount || has_snapshot > 1)
    return false;
  in.file = file;
  in.stage = Stage(stage);
  in.language = SourceLanguage(language);
  in.target = TargetEnv(target);
  for (auto& d : dirs) in.include_dirs.emplace_back(std::move(d));
  for (auto& root : roots) in.include_roots.emplace_back(std::move(root));
  req.has_snapshot = has_snapshot == 1;
  if (req.has_snapshot) {
    std::uint32_t n = 0;
    if (!r.u32(n)) return false;
    for (std::uint32_t i = 0; i < n; ++i) {
      std::string path, text;
      if (!r.str(path) || !r.str(text)) return false;
      req.snapshot.emplace(fs::path(path), std::move(text));
    }
  }
  return true;
}

void write_words(Writer& w, const std::vector<std::uint32_t>& words) {
  w.u64(words.size());
  for (std::uint32_t word : words) w.u32(word);
}

bool read_words(Reader& r, std::vector<std::uint32_t>& words, std::size_t body_size) {
  std::uint64_t n = 0;
  if (!r.u64(n) || n > body_size / 4) return false;
  words.resize(n);
  for (auto& word : words)
    if (!r.u32(word)) return false;
  return true;
}

constexpr std::uint8_t kBackendCount = 0
#define KILN_COUNT_BACKEND(name, stored) +1
    KILN_BACKENDS(KILN_COUNT_BACKEND)
#undef KILN_COUNT_BACKEND
    ;

// A reply: 1 and the value, or 0 and the error's message.
template <typename T, typename WriteValue>
std::string encode_result(const Result<T>& result, WriteValue write_value) {
  Writer w;
  w.u8(result ? 1 : 0);
  if (result)
    write_value(w, *result);
  else
    w.str(result.error().message);
  return w.take();
}

template <typename T, typename ReadValue>
std::optional<Result<T>> decode_result(std::string_view body, ReadValue read_value) {
  Reader r(body);
  std::uint8_t ok = 0;
  if (!r.u8(ok) || ok > 1) return std::nullopt;
  if (!ok) {
    std::string message;
    if (!r.str(message) || !r.done()) return std::nullopt;
    return Result<T>(make_error(std::move(message)));
  }
  T value{};
  if (!read_value(r, value) || !r.done()) return std::nullopt;
  return Result<T>(std::move(value));
}

}  // namespace

std::string encode_compile_request(const GlslInput& input, bool reflect) {
  Writer w;
  w.u8(std::uint8_t(RequestKind::kCompile));
  write_input(w, input);
  w.u8(reflect ? 1 : 0);
  return w.take();
}

std::string encode_translate_request(const TranslateInput& input) {
  Writer w;
  w.u8(std::uint8_t(RequestKind::kTranslate));
  w.str(input.file.string());
  w.u8(std::uint8_t(input.stage));
  write_words(w, input.spirv);
  w.u8(std::uint8_t(input.backend));
  w.u32(std::uint32_t(input.bindings.descriptors.size()));
  for (const auto& [slot, b] : input.bindings.descriptors) {
    for (std::uint32_t v : {slot.first, slot.second, b.binding, b.msl_buffer, b.msl_texture, b.msl_sampler}) w.u32(v);
  }
  w.u32(input.bindings.msl_push_constant_buffer);
  return w.take();
}

std::optional<Request> decode_request(std::string_view body) {
  Reader r(body);
  Request req;
  std::uint8_t kind = 0;
  if (!r.u8(kind) || kind > std::uint8_t(RequestKind::kTranslate)) return std::nullopt;
  req.kind = RequestKind(kind);
  if (req.kind == RequestKind::kCompile) {
    std::uint8_t reflect = 0;
    if (!read_input(r, req) || !r.u8(reflect) || reflect > 1 || !r.done()) return std::nullopt;
    req.reflect = reflect == 1;
    return req;
  }
  TranslateInput& t = req.translate;
  std::string file;
  std::uint8_t stage = 0, backend = 0;
  std::uint32_t descriptors = 0;
  if (!r.str(file) || !r.u8(stage) || !read_words(r, t.spirv, body.size()) || !r.u8(backend) || !r.u32(descriptors))
    return std::nullopt;
  if (stage >= runtime::kShaderStageCount || backend >= kBackendCount) return std::nullopt;
  t.file = file;
  t.stage = Stage(stage);
  t.backend = Backend(backend);
  for (std::uint32_t i = 0; i < descriptors; ++i) {
    std::uint32_t set = 0, binding = 0;
    BackendBinding b;
    if (!r.u32(set) || !r.u32(binding) || !r.u32(b.binding) || !r.u32(b.msl_buffer) || !r.u32(b.msl_texture) ||
        !r.u32(b.msl_sampler))
      return std::nullopt;
    t.bindings.descriptors[{set, binding}] = b;
  }
  if (!r.u32(t.bindings.msl_push_constant_buffer) || !r.done()) return std::nullopt;
  return req;
}

std::string encode_compile_response(const Result<GlslOutput>& result) {
  return encode_result(result, [](Writer& w, const GlslOutput& out) {
    write_words(w, out.spirv);
    std::vector<std::string> includes;
    for (const auto& p : out.includes) includes.push_back(p.string());
    w.strings(includes);
    w.str(out.warnings);
    w.u8(out.read_outside_snapshot ? 1 : 0);
  });
}

std::optional<Result<GlslOutput>> decode_compile_response(std::string_view body) {
  return decode_result<GlslOutput>(body, [&](Reader& r, GlslOutput& out) {
    std::vector<std::string> includes;
    std::uint8_t outside = 0;
    if (!read_words(r, out.spirv, body.size()) || !r.strings(includes) || !r.str(out.warnings) || !r.u8(outside) ||
        outside > 1)
      return false;
    for (auto& p : includes) out.includes.emplace_back(std::move(p));
    out.read_outside_snapshot = outside == 1;
    return true;
  });
}

std::string encode_reflection_response(const Result<runtime::StageReflection>& result) {
  return encode_result(result, [](Writer& w, const runtime::StageReflection& reflection) {
    w.str(runtime::encode_reflection(reflection));
  });
}

std::optional<Result<runtime::StageReflection>> decode_reflection_response(std::string_view body) {
  return decode_result<runtime::StageReflection>(body, [](Reader& r, runtime::StageReflection& reflection) {
    std::string text;
    if (!r.str(text)) return false;
    auto decoded = runtime::decode_reflection(text, "reflection");
    if (!decoded) return false;
    reflection = std::move(*decoded);
    return true;
  });
}

std::string encode_translate_response(const Result<std::string>& result) {
  return encode_result(result, [](Writer& w, const std::string& source) { w.str(source); });
}

std::optional<Result<std::string>> decode_translate_response(std::string_view body) {
  return decode_result<std::string>(body, [](Reader& r, std::string& source) { return r.str(source); });
}

}  // namespace kiln::shadercache::wire
