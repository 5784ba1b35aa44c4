#include "editor/preview_worker.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "kiln/core/thread_start.h"

namespace kiln::editor {
namespace {

double ms_between(PreviewWorker::Clock::time_point a, PreviewWorker::Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

Result<std::unique_ptr<PreviewWorker>> PreviewWorker::create(std::string render_device, bool validate,
                                                             std::chrono::milliseconds idle_after,
                                                             usage::UsageRecorder* recorder, std::string target) {
  auto previews = MaterialPreviews::create(std::move(render_device), validate);
  if (!previews) return previews.error();
  if (recorder) (*previews)->record_into(recorder, std::move(target));
  auto worker = std::unique_ptr<PreviewWorker>(new PreviewWorker(std::move(*previews), idle_after));
  if (worker->event_fd_ < 0)
    return make_error(std::string("cannot make an event descriptor for the previews: ") + std::strerror(errno));
  auto thread = core::start_thread([w = worker.get()] { w->run(); });
  if (!thread) return thread.error();
  worker->thread_ = std::move(*thread);
  return worker;
}

PreviewWorker::PreviewWorker(std::unique_ptr<MaterialPreviews> previews, std::chrono::milliseconds idle_after)
    : previews_(std::move(previews)),
      dir_(previews_->dir()),
      idle_after_(idle_after),
      event_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

PreviewWorker::~PreviewWorker() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  previews_.reset();  // the device and the pictures' directory
  if (event_fd_ >= 0) ::close(event_fd_);
}

void PreviewWorker::submit(Request request) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(request));
  }
  wake_.notify_one();
}

std::vector<nlohmann::json> PreviewWorker::take_events() {
  std::uint64_t count = 0;
  (void)!::read(event_fd_, &count, sizeof count);  // non-blocking: clears the descriptor
  std::lock_guard lock(mu_);
  return std::exchange(events_, {});
}

void PreviewWorker::post(nlohmann::json event) {
  {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(event));
  }
  const std::uint64_t one = 1;
  (void)!::write(event_fd_, &one, sizeof one);
}

void PreviewWorker::run() {
  auto last_request = Clock::now();
  for (;;) {
    std::deque<Request> requests;
    bool idle = false;
    {
      std::unique_lock lock(mu_);
      const auto has_work = [&] { return stopping_ || !queue_.empty() || !todo_.empty(); };
      if (!has_work()) {
        // Optimising waits for a pause in the edits: an artist saving again soon should not wait
        // for it.
        if (!idle_failed_ && previews_->has_idle_work())
          idle = !wake_.wait_until(lock, last_request + idle_after_, has_work);
        else
          wake_.wait(lock, has_work);
      }
      if (stopping_) return;
      requests.swap(queue_);
    }
    if (idle) {
      // A failure costs only speed: the fast-linked pipelines stay; said once.
      if (auto stepped = previews_->idle_step(); !stepped) {
        idle_failed_ = true;
        std::fprintf(stderr, "kiln editor: previews stay fast-linked: %s\n", stepped.error().message.c_str());
      }
      continue;
    }
    if (!requests.empty()) last_request = Clock::now();
    // Every waiting change applies before anything is drawn: pictures show what is now.
    std::set<std::uint64_t> touched;
    for (Request& request : requests) {
      touched.insert(request.change);
      for (const Draw& d : todo_) touched.insert(d.change);
      apply(request);
    }
    for (std::uint64_t change : touched) finish_if_done(change);
    if (!todo_.empty()) draw_one();
  }
}

void PreviewWorker::apply(Request& request) {
  Change& change = changes_[request.change];
  if (change.kind.empty()) {
    change.kind = request.kind;
    change.file = request.file;
    change.seen = request.change_seen;
    change.started = Clock::now();
  }
  change.last = change.last || request.last;
  change.wanted = change.wanted || !request.draw.empty() || !request.failed.empty();
  // Pictures still to draw for an earlier change that this one draws again or lets go are the
  // later change's: the earlier one names them as superseded.
  const auto supersede = [&](const std::string& material) {
    std::erase_if(todo_, [&](const Draw& d) {
      if (d.material != material || d.change == request.change) return false;
      Change& earlier = changes_[d.change];
      earlier.superseded.push_back(material);
      --earlier.pending;
      return true;
    });
  };
  if (request.clear) {
    previews_->clear();
    for (const Draw& d : std::deque<Draw>(todo_)) supersede(d.material);
  }
  for (const std::string& material : request.erase) {
    previews_->erase(material);
    supersede(material);
  }
  for (const std::string& file : request.texture_gone) previews_->texture_changed(file);
  for (auto& [file, bytes] : request.textures) previews_->put_texture(file, std::move(bytes));
  for (StagedMaterial& staged : request.put) previews_->put(staged.record, std::move(staged.variants));
  for (const auto& [material, error] : request.failed) {
    supersede(material);
    change.errors.push_back(error);
    post({{"event", "preview_error"}, {"file", material}, {"error", error}, {"change", change.kind}});
  }
  // The newest change's pictures first, each change's in the order it gave them.
  for (const std::string& material : request.draw) {
    supersede(material);
    const bool queued = std::any_of(todo_.begin(), todo_.end(), [&](const Draw& d) {
      return d.change == request.change && d.material == material;
    });
    if (queued) continue;
    const auto at = std::find_if(todo_.begin(), todo_.end(), [&](const Draw& d) { return d.change < request.change; });
    todo_.insert(at, Draw{material, request.change});
    ++change.pending;
  }
}

void PreviewWorker::draw_one() {
  const Draw draw = todo_.front();
  todo_.pop_front();
  Change& change = changes_[draw.change];
  auto picture = previews_->render(draw.material);
  const auto now = Clock::now();
  change.validated = change.validated || previews_->validating();
  if (picture && picture->empty() && !previews_->unavailable().empty())
    picture = make_error("no preview: " + previews_->unavailable());
  if (!picture) {
    change.errors.push_back(picture.error().message);
    post({{"event", "preview_error"},
          {"file", draw.material},
          {"error", picture.error().message},
          {"change", change.kind}});
  } else if (!picture->empty()) {  // else nothing to draw (a post-process material)
    if (change.previews.empty()) change.first_at = now;
    change.previews.push_back(picture->string());
    nlohmann::json event = {{"event", "preview"},
                            {"file", draw.material},
                            {"preview", picture->string()},
                            {"change", change.kind},
                            {"pixels_ms", ms_between(change.seen, now)}};
    if (previews_->validating()) event["preview_validated"] = true;
    post(std::move(event));
  }
  --change.pending;
  finish_if_done(draw.change);
}

void PreviewWorker::finish_if_done(std::uint64_t id) {
  auto found = changes_.find(id);
  if (found == changes_.end() || !found->second.last || found->second.pending > 0) return;
  Change& change = found->second;
  if (!change.wanted) {
    changes_.erase(found);
    return;
  }
  const auto now = Clock::now();
  nlohmann::json event = {{"event", "previews"},
                          {"change", change.kind},
                          {"previews", change.previews},
                          {"preview_ms", ms_between(change.started, now)}};
  if (!change.file.empty()) event["file"] = change.file;
  if (!change.errors.empty()) event["preview_errors"] = change.errors;
  if (!change.superseded.empty()) event["superseded"] = change.superseded;
  if (change.validated) event["preview_validated"] = true;
  // From the change on disk to pixels: the first picture (the edited material's), and all of them.
  if (!change.previews.empty()) {
    event["first_pixels_ms"] = ms_between(change.seen, change.first_at);
    event["all_pixels_ms"] = ms_between(change.seen, now);
  }
  event["previews_dir"] = dir_.string();
  changes_.erase(found);
  post(std::move(event));
}

}  // namespace kiln::editor
