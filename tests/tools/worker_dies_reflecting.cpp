// A stand-in for kiln-shader-worker that speaks its protocol but dies where SPIRV-Cross would crash:
// it compiles a stage for real, sends the SPIR-V, and is killed by SIGSEGV before the reflection
// reply; a translate request kills it at once. The tool's side must keep the compile and fail only
// what SPIRV-Cross was doing.

#include <csignal>
#include <string>

#include "../../engine/shadercache/src/compile_wire.h"

using namespace kiln::shadercache;

int main() {
  for (;;) {
    std::string body;
    if (kiln::core::read_message(0, body, std::chrono::steady_clock::time_point::max()) != kiln::core::ReadResult::kOk)
      return 0;
    auto request = wire::decode_request(body);
    if (!request) return 2;
    if (request->kind == wire::RequestKind::kCompile) {
      if (request->has_snapshot) request->input.snapshot = &request->snapshot;
      const auto compiled = compile_glsl_on_large_stack(request->input);
      if (!kiln::core::send_message(0, wire::encode_compile_response(compiled))) return 0;
      if (!compiled || !request->reflect) continue;
    }
    std::signal(SIGSEGV, SIG_DFL);
    std::raise(SIGSEGV);
  }
}
