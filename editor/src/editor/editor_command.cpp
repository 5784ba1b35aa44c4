// `kiln editor <project> [--json] [--stdin]`: loads the project, then watches it and keeps every
// cache current as files change, one line per event (JSON lines with --json). It runs until SIGINT
// or SIGTERM (a last "stopped" event, exit 0), so it can run in the background or under an IDE.
// With --stdin it also takes commands from standard input: `status` prints the statistics of the
// three caches, `quit` or the end of the input ends it (a "stopped" event); an unknown command or a
// line longer than any command is answered with a "command_error" event.

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <filesystem>
#include <string>
#include <string_view>

#include "cli_args.h"
#include "editor/editor_session.h"
#include "kiln/core/text.h"
#include "editor/file_watcher.h"
#include "editor/page_server.h"
#include "kiln/usage/usage_recorder.h"

namespace kiln::cli {
namespace {

// "a, b and 2 more" of a list of names.
std::string names_of(const nlohmann::json& list) {
  std::string out;
  const std::size_t shown = std::min<std::size_t>(list.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + list[i].get<std::string>();
  if (list.size() > shown) out += " and " + std::to_string(list.size() - shown) + " more";
  return out;
}

// The plain line of an event: "<file>: <what happened>", as the JSON says it, for people.
// `text` for a message: bytes outside printable ASCII as \xNN, at most 64 characters.
std::string printable(std::string_view text) {
  std::string out;
  for (const unsigned char c : text.substr(0, 64)) {
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return text.size() > 64 ? out + "..." : out;
}

std::string human(const nlohmann::json& e) {
  const std::string kind = e.value("event", "");
  const std::string file = e.value("file", "");
  auto ms = [&](const char* key) { return std::to_string(int(e.value(key, 0.0) + 0.5)) + " ms"; };
  auto n = [&](const char* key, std::string_view noun) { return count_of(e.value(key, std::size_t{0}), noun); };
  auto num = [&](const char* key) { return std::to_string(e.value(key, std::size_t{0})); };
  if (kind == "ready" || kind == "settings") {
    std::string errors;
    for (const auto& err : e.value("errors", nlohmann::json::array())) errors += err.get<std::string>() + "\n";
    return errors + (kind == "ready" ? "ready: " : file + ": reloaded the project: ") + n("materials", "material") +
           ", " + n("variants", "variant") + " (" + num("compiled") + " compiled, " + num("cache_hits") +
           " from cache), " + n("scripts", "script") + ", " + n("textures", "texture") + " in " + ms("ms") +
           (e.contains("url") ? "; page " + e["url"].get<std::string>() : std::string());
  }
  std::string warnings;  // before the event's own line, one per line
  for (const auto& w : e.value("warnings", nlohmann::json::array())) warnings += w.get<std::string>() + "\n";
  if (kind == "shader") {
    if (e.value("invalidated", 0) == 0 && e.value("recompiled", 0) == 0 && e.value("cache_hits", 0) == 0)
      return warnings + file + ": no material uses it, nothing to rebuild";
    return warnings + file + ": " + n("invalidated", "variant") + " invalidated, " + num("recompiled") +
           " recompiled, " + num("cache_hits") + " from cache in " + ms("compile_ms");
  }
  if (kind == "shader_error") {
    std::string out;
    for (const auto& err : e["errors"]) out += err.get<std::string>() + "\n";
    return out + file + ": kept the last good variants (" + num("kept_last_good") + ", stale)";
  }
  // Scripts compiled again because the engine functions changed: the errors first, then a count.
  auto scripts = [&] {
    std::string lines;
    for (const auto& err : e.value("script_errors", nlohmann::json::array())) lines += err.get<std::string>() + "\n";
    const std::string count =
        e.contains("scripts") ? "; " + count_of(e["scripts"].size(), "script") + " compiled again" : std::string();
    return std::pair{lines, count};
  };
  if (kind == "material") {
    const auto [errors, count] = scripts();
    return errors + file + ": " + n("variants", "variant") + ", " + num("recompiled") + " compiled, " +
           num("cache_hits") + " from cache" + count;
  }
  if (kind == "material_removed") {
    const auto [errors, count] = scripts();
    return errors + file + ": removed" + count;
  }
  if (kind == "script_removed") return file + ": removed";
  if (kind == "script")
    return file + ": " + num("changed_pages") + " of " + n("pages", "page") + " changed, " + num("compiled") +
           " compiled in " + ms("compile_ms");
  if (kind == "texture") {
    // What the README says the event names: its colour space, compression and wrap.
    std::string how = e.value("color_space", "");
    how += (how.empty() ? "" : ", ") + e.value("compression", "") + ", wrap " + e.value("wrap", "");
    const std::string users =
        e.contains("materials") && !e["materials"].empty() ? ", used by " + names_of(e["materials"]) : std::string();
    return file + ": reloaded (" + how + "), " + n("tiles_dropped", "tile") + " dropped" + users;
  }
  if (kind == "texture_error") {
    const std::string users = e.contains("materials") && !e["materials"].empty()
                                  ? " (used by " + names_of(e["materials"]) + ")"
                                  : std::string();
    return e.value("error", "") + users + (e.value("kept_previous", false) ? "; previous version kept" : "");
  }
  if (kind == "material_error" || kind == "script_error") {
    std::string out = e.value("error", "");
    for (const auto& err : e.value("errors", nlohmann::json::array()))
      out += (out.empty() ? "" : "\n") + err.get<std::string>();
    return (out.empty() ? file + ": error" : out) + (e.value("kept_previous", false) ? "; previous version kept" : "");
  }
  if (kind == "settings_error") {
    std::string out;
    for (const auto& err : e["errors"]) out += err.get<std::string>() + "\n";
    return out + file + ": the previous settings stay in use";
  }
  // Each picture is an event for tools (--json); people get one line when a change's are all done:
  // where they went, when the first and the last were there, and those that could not be made.
  if (kind == "preview" || kind == "preview_error") return {};
  if (kind == "previews") {
    const auto& list = e["previews"];
    const std::string since = file.empty() ? " after the start)" : " after the change)";
    std::string out = (file.empty() ? "ready" : file) + ": ";
    if (list.size() == 1)
      out += "preview " + list[0].get<std::string>() + " (pixels " + ms("first_pixels_ms") + since;
    else if (!list.empty())
      out += count_of(list.size(), "preview") + " in " + e.value("previews_dir", "") + " (first pixels " +
             ms("first_pixels_ms") + ", all " + ms("all_pixels_ms") + since;
    std::string separator = list.empty() ? "" : "; ";
    for (const auto& err : e.value("preview_errors", nlohmann::json::array())) {
      out += separator + "no preview: " + err.get<std::string>();
      separator = "; ";
    }
    return out;
  }
  if (kind == "watch_warning") return "warning: " + e.value("message", "");
  if (kind == "project_error") return "error: " + e.value("error", "");
  if (kind == "project_restored") return e.value("message", "");
  if (kind == "stopped") return "stopped (" + e.value("signal", e.value("command", "")) + ")";
  if (kind == "command_error") return "error: " + e.value("message", "");
  if (kind == "status") return "status: " + e.dump();
  return file.empty() ? kind : file + ": " + kind;
}

void emit(const nlohmann::json& event, bool json) {
  const std::string line = json ? event.dump() : human(event);
  if (line.empty()) return;  // an event for tools only
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// SIGINT and SIGTERM as events on a descriptor: blocked before any thread starts (the worker pool
// inherits the mask), read by the event loop, so the session ends through its destructor (caches
// flushed and pruned) instead of dying mid-write.
int stop_signals_fd() {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  if (::pthread_sigmask(SIG_BLOCK, &stop, nullptr) != 0) return -1;
  return ::signalfd(-1, &stop, SFD_CLOEXEC);
}

const char* signal_name(std::uint32_t signal) { return signal == SIGINT ? "SIGINT" : "SIGTERM"; }

// `--record-usage FILE`: what the previews drew, written after each change's pictures and when the
// editor stops (however it stops), each time whole through a rename.
class PreviewUsage {
 public:
  explicit PreviewUsage(std::string file) : file_(std::move(file)) {}
  ~PreviewUsage() { write(); }
  PreviewUsage(const PreviewUsage&) = delete;
  PreviewUsage& operator=(const PreviewUsage&) = delete;
  usage::UsageRecorder* recorder() { return file_.empty() ? nullptr : &recorder_; }
  void write() {
    if (file_.empty()) return;
    const usage::UsageRecord record = recorder_.record();
    if (record == written_) return;
    if (auto s = usage::write_usage(file_, record); !s) {
      if (!failed_) std::fprintf(stderr, "kiln editor: usage record not written: %s\n", s.error().message.c_str());
      failed_ = true;
      return;
    }
    written_ = record;
  }

 private:
  std::string file_;
  usage::UsageRecorder recorder_;
  usage::UsageRecord written_;
  bool failed_ = false;
};

}  // namespace

int run_editor_command(const Args& args) {
  if (args.words.size() != 2) {
    std::fprintf(stderr,
                 "usage: kiln editor <project> [--json] [--stdin] [--previews] [--serve [ADDR:]PORT] "
                 "[--serve-read-only] [--record-usage FILE]\n");
    return kExitUsage;
  }
  if (auto s = args.check_options({"--serve", "--record-usage"}); !s) {
    std::fprintf(stderr, "kiln editor: %s\n", s.error().message.c_str());
    return kExitUsage;
  }
  if (!args.option("--record-usage").empty() && !args.has("--previews") && args.option("--serve").empty()) {
    std::fprintf(stderr, "kiln editor: --record-usage records what the previews draw: add --previews\n");
    return kExitUsage;
  }
  auto loaded = load_config(args.config);
  if (!loaded) {
    std::fprintf(stderr, "kiln: %s\n", loaded.error().message.c_str());
    return kExitUsage;
  }
  const bool commands = args.has("--stdin");
  const std::filesystem::path root = args.words[1];
  // The page: served from the start, so that it is there when the project has loaded.
  std::unique_ptr<editor::PageServer> page;
  const std::string serve_at = args.option("--serve", loaded->config.editor_serve);  // the flag, else the setting
  if (!serve_at.empty()) {
    auto address = editor::parse_serve_address(serve_at);
    if (!address) {
      std::fprintf(stderr, "kiln editor: %s\n", address.error().message.c_str());
      return kExitUsage;
    }
    auto started =
        editor::start_page_server({.host = address->first,
                                   .port = address->second,
                                   .read_only = args.has("--serve-read-only") || loaded->config.editor_serve_read_only,
                                   .root = root});
    if (!started) {
      std::fprintf(stderr, "kiln editor: %s\n", started.error().message.c_str());
      return kExitFailed;
    }
    page = std::move(*started);
  }
  const int signals = stop_signals_fd();
  if (signals < 0) {
    std::fprintf(stderr, "kiln editor: cannot watch for SIGINT and SIGTERM: %s\n", std::strerror(errno));
    return kExitFailed;
  }
  // Watch first: an edit made while the project loads is not lost.
  auto watcher = editor::FileWatcher::open(root);
  if (!watcher) {
    std::fprintf(stderr, "kiln editor: %s\n", watcher.error().message.c_str());
    return kExitFailed;
  }
  // A session knows the project as it was loaded (where its files resolve, what they hold): a
  // project directory that comes back (re-created, moved back, or now a link elsewhere) is loaded
  // again by a new one.
  PreviewUsage preview_usage(args.option("--record-usage"));
  const auto open_session = [&] {
    auto made = std::make_unique<editor::EditorSession>(root, loaded->config);
    if (page) made->enable_page();
    if (args.has("--previews") || page)  // the page shows them
      if (Status enabled = made->enable_previews(preview_usage.recorder()); !enabled)
        std::fprintf(stderr, "kiln editor: previews off: %s\n", enabled.error().message.c_str());
    return made;
  };
  // Every event goes to standard output and to the open pages; after changes, the page's state.
  const auto say = [&](const nlohmann::json& event) {
    emit(event, args.json);
    if (page) page->publish(event);
  };
  editor::EditorSession* current = nullptr;
  const auto started = [&](nlohmann::json ready) {
    if (page) {  // the page has the project before its address is announced
      ready["url"] = page->url();
      if (ready.contains("previews_dir")) page->set_pictures(ready["previews_dir"].get<std::string>());
      page->set_state(current->page_state());
    }
    say(ready);
  };
  auto session = open_session();
  current = session.get();
  started(session->start());
  for (const std::string& warning : (*watcher)->take_warnings())
    say({{"event", "watch_warning"}, {"message", warning}});
  std::string input;  // the command line read so far
  bool overlong = false;
  constexpr std::size_t kMaxCommandLine = 4096;
  for (;;) {
    pollfd fds[4] = {{(*watcher)->fd(), POLLIN, 0},
                     {signals, POLLIN, 0},
                     {commands ? STDIN_FILENO : -1, POLLIN, 0},
                     {session->preview_fd(), POLLIN, 0}};
    // While the project directory is gone nothing is watched: look for it twice a second.
    const bool root_lost = (*watcher)->root_lost();
    // With a page open, the caches' figures go to it every two seconds for its charts.
    const int ready = ::poll(fds, 4, root_lost ? 500 : page ? 2000 : -1);
    if (ready < 0) continue;
    if (ready == 0 && page) page->publish({{"event", "caches"}, {"caches", session->cache_figures()}}, false);
    if (fds[3].revents & POLLIN) {  // pictures drawn: said as they land, between changes
      bool drawn = false;
      for (const auto& event : session->take_preview_events()) {
        say(event);
        drawn = drawn || event.value("event", "") == "previews";
      }
      if (drawn) preview_usage.write();
      if (page) page->set_state(session->page_state());
    }
    if (fds[1].revents & POLLIN) {
      signalfd_siginfo info{};
      if (::read(signals, &info, sizeof info) == ssize_t(sizeof info)) {
        say({{"event", "stopped"}, {"signal", signal_name(info.ssi_signo)}});
        return kExitOk;
      }
    }
    if ((fds[0].revents & POLLIN) || root_lost) {
      const auto batch = (*watcher)->collect(std::chrono::milliseconds(30));
      for (const std::string& warning : (*watcher)->take_warnings())
        say({{"event", "watch_warning"}, {"message", warning}});
      bool restored = false;
      for (const editor::RootEvent& root_event : (*watcher)->take_root_events()) {
        say({{"event", root_event.back ? "project_restored" : "project_error"},
             {root_event.back ? "message" : "error", root_event.message}});
        restored = root_event.back;
      }
      if (restored) {
        session.reset();  // its caches flushed before the new one opens them
        session = open_session();
        current = session.get();
        started(session->start());
        continue;  // the new session read every file as it is now
      }
      const auto events = session->handle(batch);
      for (const auto& event : events) say(event);
      if (page && !events.empty()) page->set_state(session->page_state());
    }
    if (fds[2].revents & (POLLIN | POLLHUP)) {
      // One command line: "status" or "quit", whatever spaces and line ending (CRLF) it comes with.
      // Returns false when it ends the editor.
      const auto command = [&](std::string line) {
        const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
        while (!line.empty() && space(line.back())) line.pop_back();
        line.erase(0, std::find_if_not(line.begin(), line.end(), space) - line.begin());
        if (line == "quit") {
          emit({{"event", "stopped"}, {"command", "quit"}}, args.json);
          return false;
        }
        if (line == "status")
          emit(session->status(), args.json);
        else if (!line.empty())
          emit({{"event", "command_error"},
                {"message", "unknown command '" + printable(line) + "' (the commands are status and quit)"}},
               args.json);
        return true;
      };
      char chunk[65536];
      const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
      if (n <= 0) {  // end of input: a last line without its newline still counts
        if (!overlong && !input.empty() && !command(input)) return kExitOk;
        emit({{"event", "stopped"}, {"command", "end of input"}}, args.json);
        return kExitOk;
      }
      // Each byte is looked at once, and a line longer than any command is dropped as it arrives:
      // a flood without newlines costs neither time nor memory, and events keep flowing.
      for (const char c : std::string_view(chunk, std::size_t(n))) {
        if (c != '\n') {
          if (input.size() < kMaxCommandLine)
            input += c;
          else
            overlong = true;
          continue;
        }
        if (overlong)
          emit({{"event", "command_error"},
                {"message", "a line of more than " + std::to_string(kMaxCommandLine) + " bytes was ignored"}},
               args.json);
        else if (!command(input))
          return kExitOk;
        input.clear();
        overlong = false;
      }
    }
  }
}

}  // namespace kiln::cli
