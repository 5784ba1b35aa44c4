#pragma once
// The editor's material previews, drawn on a thread of their own so that the editor's events keep
// flowing while pictures are drawn. The session sends what changed (materials laid out with their
// variants, textures, removals) and which pictures to draw; the worker applies every change that
// waits before it draws, draws one picture at a time, the newest change's first, and answers with
// events:
// - `preview` (a picture written: `file` the material, `preview` the picture, `pixels_ms` from the
//   change on disk) or `preview_error` (`error`), as each picture lands;
// - `previews`, once every picture a change asked for is done: the pictures, the errors,
//   `first_pixels_ms` and `all_pixels_ms`, and `superseded` (pictures a later change drew instead).
// When nothing has been asked for a while (idle_after), it links the fast-linked pipelines again
// optimised, one per step, looking at its queue between steps.
//
// Thread-safety: submit(), take_events() and fd() may be called from any one thread (the editor's
// event loop);
// the MaterialPreviews (the Vulkan device and everything drawn with it) belongs to the worker
// thread, from the first picture to the worker's end.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "editor/material_preview.h"
#include "kiln/core/result.h"

namespace kiln::editor {

class PreviewWorker {
 public:
  using Clock = std::chrono::steady_clock;
  struct StagedMaterial {
    runtime::MaterialRecord record;
    std::vector<std::pair<std::string, runtime::VariantRecord>> variants;
  };
  // One change's part: applied in order, then its pictures drawn. A change may come in parts (its
  // first material's variants first); its `previews` event follows the part marked `last`.
  struct Request {
    std::uint64_t change = 0;  // the change it belongs to (its parts share it)
    bool last = true;
    std::string kind;  // the event that asked: "ready", "material", "shader", "texture", "settings"
    std::string file;  // the changed file (empty at start)
    Clock::time_point change_seen;
    bool clear = false;                     // every material let go first
    std::vector<std::string> erase;         // materials let go
    std::vector<std::string> texture_gone;  // textures changed: dropped with their upload
    // .tx bytes, as records name them: each sent once, and again after it changed (texture_gone).
    std::vector<std::pair<std::string, std::vector<std::byte>>> textures;
    std::vector<StagedMaterial> put;
    std::vector<std::string> draw;                            // pictures to draw, the first first
    std::vector<std::pair<std::string, std::string>> failed;  // material -> why it cannot be drawn
  };

  // `recorder` (may be null, must outlive the worker): what each picture drew, of `target`.
  static Result<std::unique_ptr<PreviewWorker>> create(std::string render_device, bool validate,
                                                       std::chrono::milliseconds idle_after,
                                                       usage::UsageRecorder* recorder = nullptr,
                                                       std::string target = {});
  ~PreviewWorker();  // the picture being drawn is finished; the rest are dropped
  PreviewWorker(const PreviewWorker&) = delete;
  PreviewWorker& operator=(const PreviewWorker&) = delete;

  void submit(Request request);
  int fd() const { return event_fd_; }  // readable while events wait
  std::vector<nlohmann::json> take_events();
  const std::filesystem::path& dir() const { return dir_; }

 private:
  struct Draw {
    std::string material;
    std::uint64_t change = 0;
  };
  struct Change {  // a change's pictures so far, for its `previews` event
    std::string kind, file;
    Clock::time_point seen, first_at, started;
    bool last = false, validated = false;
    bool wanted = false;  // it asked for pictures: its `previews` event is due
    std::size_t pending = 0;
    nlohmann::json previews = nlohmann::json::array(), errors = nlohmann::json::array(),
                   superseded = nlohmann::json::array();
  };

  PreviewWorker(std::unique_ptr<MaterialPreviews> previews, std::chrono::milliseconds idle_after);
  void run();
  void apply(Request& request);  // worker thread
  void draw_one();               // worker thread: the first of todo_
  void finish_if_done(std::uint64_t change);
  void post(nlohmann::json event);

  std::unique_ptr<MaterialPreviews> previews_;  // worker thread
  std::filesystem::path dir_;
  std::chrono::milliseconds idle_after_;
  int event_fd_ = -1;
  std::deque<Draw> todo_;                    // worker thread
  std::map<std::uint64_t, Change> changes_;  // worker thread
  bool idle_failed_ = false;                 // worker thread

  mutable std::mutex mu_;  // guards what follows
  std::condition_variable wake_;
  std::deque<Request> queue_;
  std::vector<nlohmann::json> events_;
  bool stopping_ = false;
  std::thread thread_;  // started by create(), once the worker is whole
};

}  // namespace kiln::editor
