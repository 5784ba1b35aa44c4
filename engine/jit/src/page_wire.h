#pragma once
// The messages between IsolatedPageCompiler and a kiln-page-worker (framed as core/message_frames.h
// says). A request asks for the worker's compiler fingerprint, or compiles one page for a tool
// whose cache keys name a given fingerprint; the worker refuses a compile under another one.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/jit/page_compiler.h"

namespace kiln::jit::page_wire {

enum class RequestKind : std::uint8_t { kFingerprint, kCompile };

struct Request {
  RequestKind kind = RequestKind::kCompile;
  std::string fingerprint;  // kCompile: the one the tool's keys name
  std::vector<std::uint32_t> words;
  std::vector<std::uint16_t> entries;
  abi::JitMode mode = abi::JitMode::kChecked;
};

enum class ReplyKind : std::uint8_t {
  kCompiled,     // `page`
  kFailed,       // the compiler's error for this page, in `text`
  kUnavailable,  // the worker has no compiler (its plugin did not load): why, in `text`
  kFingerprint,  // the worker's fingerprint, in `text` (asked for, or a compile under another)
};

struct Reply {
  ReplyKind kind = ReplyKind::kFailed;
  CompiledPage page;
  std::string text;
};

std::string encode_fingerprint_request();
std::string encode_compile_request(const std::string& fingerprint, const PageRequest& request);
std::optional<Request> decode_request(std::string_view body);  // nullopt: malformed

std::string encode_reply(const Reply& reply);
std::optional<Reply> decode_reply(std::string_view body);  // nullopt: malformed

}  // namespace kiln::jit::page_wire
