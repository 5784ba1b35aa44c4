// Edit-to-ready and edit-to-pixels latency of `kiln editor`. Run:
//   build/release/bench/bench_editor [path/to/kiln] [path/to/assets]
// 1. A project with one shader whose materials keep 8 variants active (2 passes x 4 keyword sets);
//    the real editor process watches it; 20 edits of the shader, each a new content (a compile, not
//    a cache hit). For each: wall time from the write to the editor's event, and the event's split
//    into detection (inotify), compile (the 8 variants on the worker pool) and publish.
// 2. The sample project with --previews: 20 edits of shaders/lit.frag (15 variants, 5 materials
//    with previews) and 20 edits of a parameter of materials/brick.json: edit-to-ready, the first
//    preview's pixels and all of them (from the change on disk, as the editor reports them), beside
//    the anchor an artist has without Kiln: glslangValidator once per stage of the 15 variants
//    (KILN_BENCH_NO_ANCHOR=1 skips it, to compare two builds of kiln side by side quickly).

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
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

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Runs a program to its end, its output discarded; its exit status.
int run(const std::vector<std::string>& argv) {
  posix_spawn_file_actions_t a;
  posix_spawn_file_actions_init(&a);
  posix_spawn_file_actions_addopen(&a, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&a, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, args[0], &a, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&a);
  int status = 0;
  if (spawned != 0 || ::waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The previews part: the sample project's lit shader and brick material edited under an editor
// that renders previews. Returns non-zero when the editor does not answer as expected.
int previews_part(const std::string& kiln, const fs::path& assets, const fs::path& dir) {
  const fs::path project = dir / "previews-project";
  fs::copy(assets, project, fs::copy_options::recursive);
  Child editor = spawn({kiln, "editor", project.string(), "--json", "--stdin", "--previews", "--cache-root",
                        (dir / "previews-cache").string()});
  // The next event of `kind` (the pictures' own events in between are skipped); null if none.
  const auto next = [&](const char* kind) {
    for (;;) {
      const std::string line = editor.line(60000);
      if (line.empty()) return nlohmann::json();
      auto e = nlohmann::json::parse(line);
      if (e["event"] == kind) return e;
      if (e["event"] != "preview") {
        std::fprintf(stderr, "unexpected event: %s\n", line.c_str());
        return nlohmann::json();
      }
    }
  };
  const auto ready = next("ready");
  const auto first_previews = next("previews");
  if (!ready.contains("previewing") || first_previews.is_null() || first_previews["previews"].empty()) {
    std::fprintf(stderr, "no previews (a Vulkan device is needed): %s\n", first_previews.dump().c_str());
    return 1;
  }
  const std::string lit = [&] {
    std::ifstream in(project / "shaders/lit.frag");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  struct Edit {
    std::vector<double> wall, ready, first, all, compile;
  } shader, material;
  for (int edit = 0; edit < 20; ++edit) {
    const auto t0 = Clock::now();
    std::ofstream(project / "shaders/lit.frag", std::ios::trunc) << lit << "// edit " << edit << "\n";
    const auto e = next("shader");
    shader.wall.push_back(ms_since(t0));
    const auto pictures = next("previews");
    if (e.is_null() || e["recompiled"] != 15 || pictures.is_null() || pictures["previews"].size() != 5) {
      std::fprintf(stderr, "unexpected events: %s %s\n", e.dump().c_str(), pictures.dump().c_str());
      return 1;
    }
    shader.ready.push_back(e["detect_ms"].get<double>() + e["compile_ms"].get<double>() +
                           e["publish_ms"].get<double>());
    shader.first.push_back(pictures["first_pixels_ms"].get<double>());
    shader.compile.push_back(e["compile_ms"].get<double>());
    shader.all.push_back(pictures["all_pixels_ms"].get<double>());
  }
  auto brick = nlohmann::json::parse(std::ifstream(project / "materials/brick.json"));
  for (int edit = 0; edit < 20; ++edit) {
    for (auto& [name, value] : brick["params"].items())
      if (value.is_array() && !value.empty() && value[0].is_number()) value[0] = 0.25 + 0.03 * edit;
    const auto t0 = Clock::now();
    std::ofstream(project / "materials/brick.json", std::ios::trunc) << brick.dump();
    const auto e = next("material");
    material.wall.push_back(ms_since(t0));
    const auto pictures = next("previews");
    if (e.is_null() || pictures.is_null() || pictures["previews"].size() != 1) {
      std::fprintf(stderr, "unexpected events: %s %s\n", e.dump().c_str(), pictures.dump().c_str());
      return 1;
    }
    material.ready.push_back(e["detect_ms"].get<double>() + e["compile_ms"].get<double>());
    material.first.push_back(pictures["first_pixels_ms"].get<double>());
  }
  (void)!::write(editor.in, "quit\n", 5);
  int status = 0;
  ::waitpid(editor.pid, &status, 0);

  // The anchor: each of the 15 variants' two stages through glslangValidator, one process each.
  std::vector<double> anchor;
  const std::vector<std::vector<std::string>> keyword_sets = {
      {"NORMALMAP"}, {"NORMALMAP", "FOG"}, {"SKIN", "NORMALMAP"}, {"ALPHA_TEST", "FOG"}, {}};
  for (int round = 0; round < (std::getenv("KILN_BENCH_NO_ANCHOR") ? 0 : 5); ++round) {
    const auto t0 = Clock::now();
    for (const auto& keywords : keyword_sets)
      for (const char* pass : {"FORWARD", "SHADOW", "DEPTH"})
        for (const char* stage : {"lit.vert", "lit.frag"}) {
          std::vector<std::string> argv = {"/usr/bin/glslangValidator", "-V", "-o", (dir / "anchor.spv").string(),
                                           std::string("-DKILN_PASS_") + pass};
          for (const auto& k : keywords) argv.push_back("-D" + k);
          argv.push_back((project / "shaders" / stage).string());
          if (run(argv) != 0) {
            std::fprintf(stderr, "glslangValidator failed on %s\n", stage);
            return 1;
          }
        }
    anchor.push_back(ms_since(t0));
  }
  std::printf("\nsample project with previews (lavapipe), median of 20 edits:\n");
  std::printf(
      "  shader edit, 15 variants, 5 previews: event %.1f ms (ready %.1f ms, of which compile %.1f ms), "
      "first pixels %.1f ms, all pixels %.1f ms\n",
      median(shader.wall), median(shader.ready), median(shader.compile), median(shader.first), median(shader.all));
  std::printf("  material parameter edit: event %.1f ms (ready %.1f ms), pixels %.1f ms\n", median(material.wall),
              median(material.ready), median(material.first));
  std::printf(
      "  anchor: glslangValidator, one process per stage of the 15 variants: %.1f ms (median of 5); "
      "ready is %.2fx of it\n",
      median(anchor), median(shader.ready) / median(anchor));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kiln = argc > 1 ? argv[1] : "build/release/editor/kiln";
  const fs::path assets = argc > 2 ? argv[2] : "assets";
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
  std::printf("  total %.1f ms = detection %.1f ms (inotify) + compile %.1f ms + publish %.2f ms\n", median(total),
              median(detect), median(compile), median(publish));
  std::printf("  (min %.1f ms, max %.1f ms)\n", *std::min_element(total.begin(), total.end()),
              *std::max_element(total.begin(), total.end()));
  const int previews = previews_part(kiln, assets, dir);
  fs::remove_all(dir);
  return previews;
}
