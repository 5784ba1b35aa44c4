// `kiln editor <project> [--json]`: loads the project, then watches it and keeps every cache
// current as files change, one line per event (JSON lines with --json). Reads commands from
// standard input: `status` prints the statistics of the three caches, `quit` (or end of input) ends.

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli_args.h"
#include "editor/editor_session.h"
#include "editor/file_watcher.h"

namespace kiln::cli {
namespace {

std::string human(const nlohmann::json& e) {
  const std::string kind = e.value("event", "");
  const std::string file = e.value("file", "");
  auto ms = [&](const char* key) { return std::to_string(int(e.value(key, 0.0) + 0.5)) + " ms"; };
  if (kind == "ready")
    return "ready: " + std::to_string(e["materials"].get<int>()) + " materials, " +
           std::to_string(e["variants"].get<int>()) + " variants (" + std::to_string(e["compiled"].get<int>()) +
           " compiled, " + std::to_string(e["cache_hits"].get<int>()) + " from cache), " +
           std::to_string(e["scripts"].get<int>()) + " scripts, " + std::to_string(e["textures"].get<int>()) +
           " textures in " + ms("ms");
  if (kind == "shader")
    return file + ": " + std::to_string(e["invalidated"].get<int>()) + " variants invalidated, " +
           std::to_string(e["recompiled"].get<int>()) + " recompiled, " + std::to_string(e["cache_hits"].get<int>()) +
           " from cache in " + ms("compile_ms");
  if (kind == "shader_error") {
    std::string out;
    for (const auto& err : e["errors"]) out += err.get<std::string>() + "\n";
    return out + file + ": kept the last good variants (" + std::to_string(e["kept_last_good"].get<int>()) + ", stale)";
  }
  if (kind == "material")
    return file + ": " + std::to_string(e["variants"].get<int>()) + " variants, " +
           std::to_string(e["recompiled"].get<int>()) + " compiled, " + std::to_string(e["cache_hits"].get<int>()) +
           " from cache";
  if (kind == "script")
    return file + ": " + std::to_string(e["changed_pages"].get<int>()) + " of " +
           std::to_string(e["pages"].get<int>()) + " pages changed, " + std::to_string(e["compiled"].get<int>()) +
           " compiled in " + ms("compile_ms");
  if (kind == "texture")
    return file + ": " + std::to_string(e["tiles_dropped"].get<int>()) + " tiles of " + e["image"].get<std::string>() +
           " dropped, reloaded";
  if (kind == "material_error" || kind == "script_error" || kind == "texture_error")
    return e.value("error", "") + (e.value("kept_previous", false) ? " (previous version kept)" : "");
  if (kind == "watch_warning") return "warning: " + e.value("message", "");
  if (kind == "status") return "status: " + e.dump();
  return kind + " " + file;
}

void emit(const nlohmann::json& event, bool json) {
  std::printf("%s\n", json ? event.dump().c_str() : human(event).c_str());
  std::fflush(stdout);
}

}  // namespace

int run_editor_command(const Args& args) {
  if (args.words.size() != 2) {
    std::fprintf(stderr, "usage: kiln editor <project> [--json]\n");
    return kExitUsage;
  }
  if (auto s = args.check_options({}); !s) {
    std::fprintf(stderr, "kiln editor: %s\n", s.error().message.c_str());
    return kExitUsage;
  }
  auto loaded = load_config(args.config);
  if (!loaded) {
    std::fprintf(stderr, "kiln: %s\n", loaded.error().message.c_str());
    return kExitUsage;
  }
  const std::filesystem::path root = args.words[1];
  // Watch first: an edit made while the project loads is not lost.
  auto watcher = editor::FileWatcher::open(root);
  if (!watcher) {
    std::fprintf(stderr, "kiln editor: %s\n", watcher.error().message.c_str());
    return kExitFailed;
  }
  editor::EditorSession session(root, loaded->config);
  emit(session.start(), args.json);
  for (const std::string& warning : (*watcher)->take_warnings())
    emit({{"event", "watch_warning"}, {"message", warning}}, args.json);
  std::string input;
  for (;;) {
    pollfd fds[2] = {{(*watcher)->fd(), POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;
    if (fds[0].revents & POLLIN) {
      const auto batch = (*watcher)->collect(std::chrono::milliseconds(30));
      for (const std::string& warning : (*watcher)->take_warnings())
        emit({{"event", "watch_warning"}, {"message", warning}}, args.json);
      for (const auto& event : session.handle(batch)) emit(event, args.json);
    }
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      char chunk[256];
      const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
      if (n <= 0) return kExitOk;  // end of input
      input.append(chunk, std::size_t(n));
      for (std::size_t nl; (nl = input.find('\n')) != std::string::npos;) {
        const std::string command = input.substr(0, nl);
        input.erase(0, nl + 1);
        if (command == "quit") return kExitOk;
        if (command == "status") emit(session.status(), args.json);
      }
    }
  }
}

}  // namespace kiln::cli
