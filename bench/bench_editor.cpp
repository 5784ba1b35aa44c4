// Edit-to-ready latency of `kiln editor`. Run:
//   build/release/bench/bench_editor [path/to/kiln]
// A project with one shader whose materials keep 8 variants active (2 passes x 4 keyword sets); the
// real editor process watches it; 20 edits of the shader, each a new content (a compile, not a
// cache hit). For each: wall time from the write to the editor's event, and the event's split into
// detection (inotify + debounce), compile (the 8 variants on the worker pool) and publish.

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Child {
  pid_t pid = -1;
  int out = -1, in = -1;
  std::string buffer;
  std::string line(int timeout_ms) {
    for (;;) {
      if (auto nl = buffer.find('\n'); nl != std::string::npos) {
        std::string l = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        return l;
      }
      pollfd p{out, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) return "";
      char chunk[4096];
      const ssize_t n = ::read(out, chunk, sizeof chunk);
      if (n <= 0) return "";
      buffer.append(chunk, std::size_t(n));
    }
  }
};

Child spawn(const std::vector<std::string>& argv) {
  int o[2], i[2];
  if (::pipe(o) != 0 || ::pipe(i) != 0) return {};
  posix_spawn_file_actions_t a;
  posix_spawn_file_actions_init(&a);
  posix_spawn_file_actions_adddup2(&a, o[1], 1);
  posix_spawn_file_actions_adddup2(&a, i[0], 0);
  std::vector<char*> args;
  for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  Child c;
  posix_spawn(&c.pid, args[0], &a, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&a);
  ::close(o[1]);
  ::close(i[0]);
  c.out = o[0];
  c.in = i[1];
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kiln = argc > 1 ? argv[1] : "build/release/editor/kiln";
  const fs::path dir = fs::temp_directory_path() / ("kiln-bench-editor-" + std::to_string(::getpid()));
  fs::create_directories(dir / "project/shaders");
  fs::create_directories(dir / "project/materials");
  const std::string frag =
      "#version 450\n#pragma kiln keywords A B C\n#pragma kiln passes Color Depth\nlayout(location = 0) in vec3 n;\n"
      "layout(location = 0) out vec4 color;\nvoid main() {\n  vec3 c = normalize(n) * 0.5 + 0.5;\n"
      "#ifdef A\n  c = pow(c, vec3(2.2));\n#endif\n#ifdef B\n  c *= 0.8;\n#endif\n#ifdef C\n  c = 1.0 - c;\n#endif\n"
      "#ifdef KILN_PASS_DEPTH\n  c = vec3(gl_FragCoord.z);\n#endif\n  color = vec4(c, 1.0);\n}\n";
  std::ofstream(dir / "project/shaders/bench.frag") << frag;
  const char* sets[] = {"[]", "[\"A\"]", "[\"A\", \"B\"]", "[\"A\", \"B\", \"C\"]"};
  for (int m = 0; m < 4; ++m)
    std::ofstream(dir / "project/materials" / ("m" + std::to_string(m) + ".json"))
        << "{\"shader\": \"shaders/bench.frag\", \"keywords\": " << sets[m] << "}";
  Child editor = spawn(
      {kiln, "editor", (dir / "project").string(), "--json", "--stdin", "--cache-root", (dir / "cache").string()});
  const auto ready = nlohmann::json::parse(editor.line(60000));
  std::printf("editor ready: %d variants active\n", ready["variants"].get<int>());
  std::vector<double> total, detect, compile, publish;
  for (int edit = 0; edit < 20; ++edit) {
    const auto t0 = Clock::now();
    std::ofstream(dir / "project/shaders/bench.frag", std::ios::trunc) << frag << "// edit " << edit << "\n";
    const std::string line = editor.line(60000);
    const double wall = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const auto e = nlohmann::json::parse(line);
    if (e["event"] != "shader" || e["recompiled"] != 8) {
      std::fprintf(stderr, "unexpected event: %s\n", line.c_str());
      return 1;
    }
    total.push_back(wall);
    detect.push_back(e["detect_ms"].get<double>());
    compile.push_back(e["compile_ms"].get<double>());
    publish.push_back(e["publish_ms"].get<double>());
  }
  (void)!::write(editor.in, "quit\n", 5);
  int status = 0;
  ::waitpid(editor.pid, &status, 0);
  std::printf("edit-to-ready, one shader with 8 active variants, median of 20 edits:\n");
  std::printf("  total %.1f ms = detection %.1f ms (inotify + 30 ms debounce) + compile %.1f ms + publish %.2f ms\n",
              median(total), median(detect), median(compile), median(publish));
  std::printf("  (min %.1f ms, max %.1f ms)\n", *std::min_element(total.begin(), total.end()),
              *std::max_element(total.begin(), total.end()));
  fs::remove_all(dir);
  return 0;
}
