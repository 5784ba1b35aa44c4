#pragma once
// The messages between IsolatedCompiler and a kiln-shader-worker over a socket: each is a 64-bit
// length and a body of fields (little-endian integers, length-prefixed strings). Both ends are
// the same build, so there is no versioning; the decoders still check every length, because a
// dying worker can leave a message cut short.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/shadercache/glsl_compiler.h"

namespace kiln::shadercache::wire {

struct Request {
  GlslInput input;  // input.snapshot points into `snapshot` when has_snapshot
  std::map<std::filesystem::path, std::string> snapshot;
  bool has_snapshot = false;
};

std::string encode_request(const GlslInput& input);
std::optional<Request> decode_request(std::string_view body);  // nullopt: malformed

std::string encode_response(const Result<GlslOutput>& result);
std::optional<Result<GlslOutput>> decode_response(std::string_view body);  // nullopt: malformed

// Whole messages. `deadline` bounds the wait for a reply; a closed peer, a timeout or a malformed
// length is a failure.
bool send_message(int fd, std::string_view body);
enum class ReadResult { kOk, kClosed, kTimeout };
ReadResult read_message(int fd, std::string& body, std::chrono::steady_clock::time_point deadline);

// No limit on request size beyond this: a snapshot is a shader and its includes.
inline constexpr std::uint64_t kMaxMessageBytes = std::uint64_t{1} << 30;

}  // namespace kiln::shadercache::wire
