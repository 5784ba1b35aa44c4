#pragma once
// The messages between IsolatedCompiler and a kiln-shader-worker (framed as core/message_frames.h says). A request compiles
// a stage (and reflects it) or translates a module to a backend's language. Both ends are
// the same build, so there is no versioning; the decoders still check every length, because a
// dying worker can leave a message cut short.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/core/message_frames.h"
#include "kiln/shadercache/isolated_compiler.h"

namespace kiln::shadercache::wire {

enum class RequestKind : std::uint8_t { kCompile, kTranslate };

struct Request {
  RequestKind kind = RequestKind::kCompile;
  // kCompile: input.snapshot points into `snapshot` when has_snapshot. With `reflect`, a second
  // reply follows the compile's: the reflection, so that a crash in SPIRV-Cross keeps the SPIR-V.
  GlslInput input;
  std::map<std::filesystem::path, std::string> snapshot;
  bool has_snapshot = false;
  bool reflect = false;
  TranslateInput translate;  // kTranslate
};

std::string encode_compile_request(const GlslInput& input, bool reflect);
std::string encode_translate_request(const TranslateInput& input);
std::optional<Request> decode_request(std::string_view body);  // nullopt: malformed

std::string encode_compile_response(const Result<GlslOutput>& result);
std::optional<Result<GlslOutput>> decode_compile_response(std::string_view body);  // nullopt: malformed
// The reflection reply: the stored form (runtime::encode_reflection) or SPIRV-Cross's refusal.
std::string encode_reflection_response(const Result<runtime::StageReflection>& result);
std::optional<Result<runtime::StageReflection>> decode_reflection_response(std::string_view body);
std::string encode_translate_response(const Result<std::string>& result);
std::optional<Result<std::string>> decode_translate_response(std::string_view body);

}  // namespace kiln::shadercache::wire
