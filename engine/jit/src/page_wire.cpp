#include "page_wire.h"

#include "kiln/core/message_frames.h"

namespace kiln::jit::page_wire {

std::string encode_fingerprint_request() {
  core::FieldWriter w;
  w.u8(std::uint8_t(RequestKind::kFingerprint));
  return w.take();
}

std::string encode_compile_request(const std::string& fingerprint, const PageRequest& request) {
  core::FieldWriter w;
  w.u8(std::uint8_t(RequestKind::kCompile));
  w.str(fingerprint);
  w.array(request.words);
  w.array(std::span<const std::uint16_t>(request.entries));
  w.u32(std::uint32_t(request.mode));
  return w.take();
}

std::optional<Request> decode_request(std::string_view body) {
  core::FieldReader r(body);
  Request request;
  std::uint8_t kind = 0;
  if (!r.u8(kind) || kind > std::uint8_t(RequestKind::kCompile)) return std::nullopt;
  request.kind = RequestKind(kind);
  if (request.kind == RequestKind::kCompile) {
    std::uint32_t mode = 0;
    if (!r.str(request.fingerprint) || !r.array(request.words) || !r.array(request.entries) || !r.u32(mode) ||
        mode > std::uint32_t(abi::JitMode::kUnchecked))
      return std::nullopt;
    request.mode = abi::JitMode(mode);
  }
  if (!r.done()) return std::nullopt;
  return request;
}

std::string encode_reply(const Reply& reply) {
  core::FieldWriter w;
  w.u8(std::uint8_t(reply.kind));
  if (reply.kind == ReplyKind::kCompiled) {
    const CompiledPage& p = reply.page;
    w.array(std::span<const std::uint8_t>(p.code));
    w.u32(p.function_offset);
    w.u32(p.alignment);
    w.array(std::span<const std::uint16_t>(p.entries));
    w.array(std::span<const std::uint8_t>(p.used_words));
    w.u8(p.cacheable ? 1 : 0);
    w.str(p.not_cacheable_reason);
  } else {
    w.str(reply.text);
  }
  return w.take();
}

std::optional<Reply> decode_reply(std::string_view body) {
  core::FieldReader r(body);
  Reply reply;
  std::uint8_t kind = 0;
  if (!r.u8(kind) || kind > std::uint8_t(ReplyKind::kFingerprint)) return std::nullopt;
  reply.kind = ReplyKind(kind);
  if (reply.kind == ReplyKind::kCompiled) {
    CompiledPage& p = reply.page;
    std::uint8_t cacheable = 0;
    if (!r.array(p.code) || !r.u32(p.function_offset) || !r.u32(p.alignment) || !r.array(p.entries) ||
        !r.array(p.used_words) || !r.u8(cacheable) || cacheable > 1 || !r.str(p.not_cacheable_reason))
      return std::nullopt;
    p.cacheable = cacheable == 1;
    // The tool jumps to function_offset in code it aligned so: both must describe the code sent.
    if (p.function_offset >= p.code.size() || p.alignment == 0 || p.alignment > 4096 ||
        (p.alignment & (p.alignment - 1)) != 0)
      return std::nullopt;
  } else if (!r.str(reply.text)) {
    return std::nullopt;
  }
  if (!r.done()) return std::nullopt;
  return reply;
}

}  // namespace kiln::jit::page_wire
