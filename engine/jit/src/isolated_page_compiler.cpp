#include "kiln/jit/isolated_page_compiler.h"

#include <csignal>

#include "kept_fingerprint.h"
#include "kiln/core/message_frames.h"
#include "kiln/core/program_files.h"
#include "kiln/jit/aot_pages.h"
#include "page_wire.h"

namespace kiln::jit {
namespace fs = std::filesystem;

namespace {

constexpr int kOptLevel = 2;  // the settings a worker's compiler is made with (PluginPageCompiler's)

}  // namespace

fs::path default_page_worker() { return find_program_file("kiln-page-worker", /*executable=*/true); }

IsolatedPageCompiler::IsolatedPageCompiler(PageWorkerOptions options, core::WorkerOptions workers)
    : options_(std::move(options)), workers_(std::move(workers)) {}

IsolatedPageCompiler::~IsolatedPageCompiler() = default;

Result<std::unique_ptr<IsolatedPageCompiler>> IsolatedPageCompiler::create(PageWorkerOptions options) {
  if (options.worker.empty()) options.worker = default_page_worker();
  core::WorkerOptions workers{.program = options.worker,
                              .name = "script compile worker",
                              .missing =
                                  "no script compile worker (kiln-page-worker) beside this program; install "
                                  "it with kiln, or set jit.compile_workers off"};
  std::unique_ptr<IsolatedPageCompiler> self(new IsolatedPageCompiler(std::move(options), std::move(workers)));
  self->kept_ = std::make_unique<KeptFingerprint>(self->options_.store, kOptLevel, false);
  if (auto kept = self->kept_->read()) {
    self->fingerprint_ = std::move(*kept);
    return self;
  }
  auto reply = self->exchange(page_wire::encode_fingerprint_request(), "starting");
  if (!reply) return reply.error();
  if (reply->kind != page_wire::ReplyKind::kFingerprint && reply->kind != page_wire::ReplyKind::kUnavailable)
    return make_error("the script compile worker sent a reply that cannot be read, starting");
  if (reply->kind == page_wire::ReplyKind::kUnavailable) return make_error(reply->text);
  self->fingerprint_ = reply->text;
  self->kept_->keep(self->fingerprint_);
  return self;
}

Result<page_wire::Reply> IsolatedPageCompiler::exchange(const std::string& request, const std::string& doing) {
  auto sent = workers_.send(request, "the script compiler, " + doing + ": ");
  if (!sent) return sent.error();
  std::unique_ptr<core::WorkerProcesses::Worker> worker = std::move(*sent);
  core::WorkerReply reply = workers_.await(worker, std::chrono::steady_clock::time_point::max());
  if (reply.outcome != core::WorkerReply::kMessage)
    return make_error("the script compiler " + core::describe_exit(reply.exit_status) + " " + doing);
  auto decoded = page_wire::decode_reply(reply.body);
  if (!decoded) {
    worker->stop(SIGKILL);  // what it sends next cannot be trusted either
    return make_error("the script compile worker sent a reply that cannot be read, " + doing);
  }
  workers_.keep_idle(std::move(worker));
  return std::move(*decoded);
}

Result<CompiledPage> IsolatedPageCompiler::fail(std::string why) {
  std::lock_guard lock(mu_);
  if (failure_.empty()) failure_ = why;
  return make_error(std::move(why));
}

std::string IsolatedPageCompiler::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

Result<CompiledPage> IsolatedPageCompiler::compile(const PageRequest& request) {
  const std::string page = "page " + aot_page_id(request.words, request.mode);
  auto reply = exchange(page_wire::encode_compile_request(fingerprint_, request), "compiling " + page);
  if (!reply) return fail(reply.error().message);
  switch (reply->kind) {
    case page_wire::ReplyKind::kCompiled:
      if (!reply->page.cacheable)
        return make_error(page + ": compiled code that needs " + reply->page.not_cacheable_reason +
                          ", which only the compiling process has");
      return std::move(reply->page);
    case page_wire::ReplyKind::kFailed: return make_error(std::move(reply->text));
    case page_wire::ReplyKind::kUnavailable: return fail(std::move(reply->text));
    case page_wire::ReplyKind::kFingerprint:
      kept_->keep(reply->text);  // for the next run: this one's keys name the kept fingerprint
      return fail(
          "the script compiler's fingerprint changed since it was kept (an LLVM update?): pages are "
          "compiled again from the next run");
  }
  return fail("the script compile worker sent a reply that cannot be read, compiling " + page);
}

int serve_page_requests(int fd, PageCompiler* compiler, const std::string& why_none) {
  for (;;) {
    std::string body;
    if (core::read_message(fd, body, std::chrono::steady_clock::time_point::max()) != core::ReadResult::kOk) return 0;
    auto request = page_wire::decode_request(body);
    if (!request) return 2;
    page_wire::Reply reply;
    if (!compiler) {
      reply = {.kind = page_wire::ReplyKind::kUnavailable, .text = why_none};
    } else if (request->kind == page_wire::RequestKind::kFingerprint ||
               request->fingerprint != compiler->fingerprint()) {
      reply = {.kind = page_wire::ReplyKind::kFingerprint, .text = compiler->fingerprint()};
    } else if (auto compiled = compiler->compile({request->words, request->entries, request->mode})) {
      reply = {.kind = page_wire::ReplyKind::kCompiled, .page = std::move(*compiled)};
    } else {
      reply = {.kind = page_wire::ReplyKind::kFailed, .text = compiled.error().message};
    }
    if (!core::send_message(fd, page_wire::encode_reply(reply))) return 0;
  }
}

}  // namespace kiln::jit
