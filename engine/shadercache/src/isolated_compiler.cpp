#include "kiln/shadercache/isolated_compiler.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <functional>
#include <optional>

#include "compile_wire.h"
#include "kiln/core/message_frames.h"
#include "kiln/core/program_files.h"
#include "kiln/core/stack_threads.h"
#include "kiln/shadercache/reflection.h"

namespace kiln::shadercache {
namespace fs = std::filesystem;
namespace {

// A worker exits with this after answering a compile that ran out of memory: glslang's state may
// not survive an allocation failure, so the next compile gets a fresh process.
constexpr int kExitAfterOutOfMemory = 3;

std::string error_prefix(const GlslInput& input) { return input.file.string() + ": error: "; }

}  // namespace

IsolatedCompiler::IsolatedCompiler(CompileIsolation isolation)
    : isolation_(std::move(isolation)),
      workers_({.program = isolation_.worker,
                .args = {"--memory-limit", std::to_string(isolation_.memory_limit_bytes)},
                .name = "shader compile worker",
                .missing = "no shader compile worker (kiln-shader-worker) beside this program; "
                           "install it with kiln, or set shaders.compile_workers off",
                .memory_limit_bytes = isolation_.memory_limit_bytes,
                .out_of_memory_exit = kExitAfterOutOfMemory}) {}

IsolatedCompiler::~IsolatedCompiler() = default;

IsolatedCompilerStats IsolatedCompiler::stats() const {
  const core::WorkerStats s = workers_.stats();
  return {.workers_started = s.started, .workers_lost = s.lost};
}

std::string IsolatedCompiler::describe_loss(const core::WorkerReply& reply, const std::string& tool,
                                            const std::string& doing) const {
  using Reply = core::WorkerReply;
  const std::string during = doing.empty() ? "" : " " + doing;
  switch (reply.outcome) {
    case Reply::kMessage: return tool + " sent a reply that cannot be read";
    case Reply::kTimeout:
      return tool + " ran longer than " +
             std::to_string(std::chrono::duration_cast<std::chrono::seconds>(isolation_.timeout).count()) + " s" +
             during + " and was stopped (shaders.compile_timeout)";
    case Reply::kOverMemory:
      return tool + " ran out of memory" + during + " (limit " + std::to_string(isolation_.memory_limit_bytes >> 20) +
             " MiB, shaders.compile_memory_max)";
    case Reply::kDied: return tool + " " + core::describe_exit(reply.exit_status) + during;
  }
  return tool + " failed";
}

Result<ReflectedStage> IsolatedCompiler::compile_in_worker(const GlslInput& input, bool reflect) {
  auto sent = workers_.send(wire::encode_compile_request(input, reflect), error_prefix(input));
  if (!sent) return sent.error();
  std::unique_ptr<Worker> worker = std::move(*sent);
  const auto deadline = std::chrono::steady_clock::now() + isolation_.timeout;
  core::WorkerReply reply = workers_.await(worker, deadline);
  std::optional<Result<GlslOutput>> compiled;
  if (reply.outcome == core::WorkerReply::kMessage) compiled = wire::decode_compile_response(reply.body);
  if (!compiled) {
    if (worker) worker->stop(SIGKILL);
    if (reply.outcome == core::WorkerReply::kDied)
      return make_error(error_prefix(input) + "the shader compiler " + core::describe_exit(reply.exit_status) +
                        " on this shader, most likely on an expression or macro expansion too deep for it");
    return make_error(error_prefix(input) + describe_loss(reply, "the shader compiler", ""));
  }
  if (!*compiled || !reflect) {
    workers_.keep_idle(std::move(worker));
    if (!*compiled) return std::move(*compiled).error();
    return ReflectedStage{.glsl = std::move(**compiled)};
  }
  ReflectedStage stage{.glsl = std::move(**compiled)};
  // The compile is done: a worker lost from here on costs the reflection, not the SPIR-V.
  reply = workers_.await(worker, deadline);
  std::optional<Result<runtime::StageReflection>> reflection;
  if (reply.outcome == core::WorkerReply::kMessage) reflection = wire::decode_reflection_response(reply.body);
  if (!reflection) {
    if (worker) worker->stop(SIGKILL);
    stage.reflection_error = describe_loss(reply, "SPIRV-Cross", "reading it");
    return stage;
  }
  workers_.keep_idle(std::move(worker));
  if (*reflection)
    stage.reflection = std::move(**reflection);
  else
    stage.reflection_error = reflection->error().message;
  return stage;
}

Result<std::string> IsolatedCompiler::translate_in_worker(const TranslateInput& input) {
  const std::string where = input.file.string() + ": error: " + std::string(stage_name(input.stage)) + " stage: ";
  auto sent = workers_.send(wire::encode_translate_request(input), where);
  if (!sent) return sent.error();
  std::unique_ptr<Worker> worker = std::move(*sent);
  core::WorkerReply reply = workers_.await(worker, std::chrono::steady_clock::now() + isolation_.timeout);
  std::optional<Result<std::string>> source;
  if (reply.outcome == core::WorkerReply::kMessage) source = wire::decode_translate_response(reply.body);
  if (!source) {
    if (worker) worker->stop(SIGKILL);
    return make_error(where + describe_loss(reply, "SPIRV-Cross",
                                            "translating it to " + std::string(runtime::backend_name(input.backend))));
  }
  workers_.keep_idle(std::move(worker));
  if (!*source) return make_error(where + source->error().message);
  return std::move(**source);
}

Result<GlslOutput> IsolatedCompiler::compile(const GlslInput& input) {
  if (isolation_.mode == CompileIsolation::Mode::kThread) return compile_glsl_on_large_stack(input);
  auto stage = compile_in_worker(input, /*reflect=*/false);
  if (!stage) return stage.error();
  return std::move(stage->glsl);
}

Result<ReflectedStage> IsolatedCompiler::compile_and_reflect(const GlslInput& input) {
  if (isolation_.mode == CompileIsolation::Mode::kProcess) return compile_in_worker(input, /*reflect=*/true);
  auto glsl = compile_glsl_on_large_stack(input);
  if (!glsl) return glsl.error();
  ReflectedStage stage{.glsl = std::move(*glsl)};
  if (auto reflection = reflect_on_large_stack(stage.glsl.spirv))
    stage.reflection = std::move(*reflection);
  else
    stage.reflection_error = reflection.error().message;
  return stage;
}

Result<std::string> IsolatedCompiler::translate(const TranslateInput& input) {
  if (input.backend == Backend::kSpirv) return std::string();
  if (isolation_.mode == CompileIsolation::Mode::kProcess) return translate_in_worker(input);
  auto source = translate_on_large_stack(input);
  if (!source)
    return make_error(input.file.string() + ": error: " + std::string(stage_name(input.stage)) +
                      " stage: " + source.error().message);
  return source;
}

namespace {

// Runs `work` on a kCompileStackBytes thread (kept for the next job): glslang and SPIRV-Cross both
// recurse over what they read. With `peer` (a worker's socket), the calling thread watches it
// meanwhile and ends the process when the tool hangs up: a runaway job must not outlive the tool
// that asked for it. Both libraries' own failures are results already (compile_glsl,
// reflect_spirv and cross_compile catch what they throw); running out of memory is the one left,
// said as "<prefix><tool> ran out of memory" and reported through `out_of_memory`.
template <typename T>
Result<T> on_large_stack(const std::function<Result<T>()>& work, const std::string& prefix, const std::string& tool,
                         bool* out_of_memory, int peer) {
  std::optional<Result<T>> output;
  bool ran_out = false;
  const auto job = [&] {
    try {
      output.emplace(work());
    } catch (const std::bad_alloc&) {
      ran_out = true;
      output.emplace(make_error(prefix + tool + " ran out of memory"));
    }
  };
  const auto wait = [&](int done_fd) {
    for (bool done = false; !done;) {
      pollfd fds[2] = {{peer, POLLRDHUP, 0}, {done_fd, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) continue;
      if (fds[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) ::_exit(0);
      done = (fds[1].revents & POLLIN) != 0;
    }
  };
  if (auto ran = core::run_on_stack_thread(kCompileStackBytes, job, wait); !ran)
    return make_error(prefix + "cannot start a compile thread: " + ran.error().message);
  if (out_of_memory) *out_of_memory = ran_out;
  return std::move(*output);
}

Result<GlslOutput> compile_on_large_stack(const GlslInput& input, bool* out_of_memory, int peer) {
  return on_large_stack<GlslOutput>([&] { return compile_glsl(input); }, error_prefix(input), "the shader compiler",
                                    out_of_memory, peer);
}

template <typename T>
Result<T> spirv_cross_on_large_stack(const std::function<Result<T>()>& work, bool* out_of_memory, int peer) {
  return on_large_stack<T>(work, "", "SPIRV-Cross", out_of_memory, peer);
}

}  // namespace

Result<GlslOutput> compile_glsl_on_large_stack(const GlslInput& input) {
  return compile_on_large_stack(input, nullptr, -1);
}

Result<runtime::StageReflection> reflect_on_large_stack(const std::vector<std::uint32_t>& spirv) {
  return spirv_cross_on_large_stack<runtime::StageReflection>([&] { return reflect_spirv(spirv); }, nullptr, -1);
}

Result<std::string> translate_on_large_stack(const TranslateInput& input) {
  return spirv_cross_on_large_stack<std::string>(
      [&] { return cross_compile(input.spirv, input.backend, input.bindings); }, nullptr, -1);
}

int serve_compile_requests(int fd) {
  for (;;) {
    std::string body;
    if (core::read_message(fd, body, std::chrono::steady_clock::time_point::max()) != core::ReadResult::kOk) return 0;
    auto request = wire::decode_request(body);
    if (!request) return 2;
    bool out_of_memory = false;
    if (request->kind == wire::RequestKind::kTranslate) {
      const TranslateInput& t = request->translate;
      const auto source = spirv_cross_on_large_stack<std::string>(
          [&] { return cross_compile(t.spirv, t.backend, t.bindings); }, &out_of_memory, fd);
      if (out_of_memory) return kExitAfterOutOfMemory;
      if (!core::send_message(fd, wire::encode_translate_response(source))) return 0;
      continue;
    }
    if (request->has_snapshot) request->input.snapshot = &request->snapshot;
    const Result<GlslOutput> result = compile_on_large_stack(request->input, &out_of_memory, fd);
    if (out_of_memory) return kExitAfterOutOfMemory;  // the reply would need memory too; the exit says it
    if (!core::send_message(fd, wire::encode_compile_response(result))) return 0;
    if (!result || !request->reflect) continue;
    const auto reflection = spirv_cross_on_large_stack<runtime::StageReflection>(
        [&] { return reflect_spirv(result->spirv); }, &out_of_memory, fd);
    if (out_of_memory) return kExitAfterOutOfMemory;
    if (!core::send_message(fd, wire::encode_reflection_response(reflection))) return 0;
  }
}

fs::path default_compile_worker() { return find_program_file("kiln-shader-worker", /*executable=*/true); }

CompileIsolation compile_isolation(const Config& config) {
  CompileIsolation isolation;
  if (!config.shader_compile_workers) return isolation;
  isolation.mode = CompileIsolation::Mode::kProcess;
  isolation.worker = default_compile_worker();
  isolation.memory_limit_bytes = config.shader_compile_memory_max_bytes;
  isolation.timeout = std::chrono::seconds(config.shader_compile_timeout_s);
  return isolation;
}

}  // namespace kiln::shadercache
