// glslang runs in kiln-shader-worker processes: an expression deep enough to overflow a normal
// stack compiles, and a shader that blows the memory limit, runs past the timeout or crashes its
// worker fails alone with a message, through `kiln shader compile`, `kiln cook` and `kiln editor`.
#include <doctest/doctest.h>

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "child_process.h"
#include "editor_process.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// `#define A<i> A<i-1>+A<i-1>`: 2^levels terms from a 30-line file.
std::string macro_bomb(int levels) {
  std::string s = "#version 450\nlayout(location = 0) out vec4 colour;\n#define A0 x\n";
  for (int i = 1; i <= levels; ++i)
    s += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + "+A" + std::to_string(i - 1) + "\n";
  return s + "void main() { float x = 1.0; colour = vec4(A" + std::to_string(levels) + "); }\n";
}

std::string long_chain(int terms) {
  std::string s = "#version 450\nlayout(location = 0) out vec4 colour;\nvoid main() { float x = 1.0; float y = x";
  for (int i = 0; i < terms; ++i) s += "+x";
  return s + "; colour = vec4(y); }\n";
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  while (const dirent* e = d ? ::readdir(d) : nullptr) {
    const pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == parent) out.push_back(pid);
  }
  if (d) ::closedir(d);
  return out;
}

// The tool's compile workers, once it has started one (up to 4 s).
std::vector<pid_t> workers_of(pid_t tool) {
  std::vector<pid_t> workers;
  for (int i = 0; i < 200 && workers.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    workers = children_of(tool);
  }
  return workers;
}

// `kiln shader compile` of a shader whose preprocessing takes long, as a child process: its worker
// is busy for the whole test.
test::ChildProcess start_bomb_compile(const test::TempDir& dir) {
  std::ofstream(dir / "bomb.frag") << macro_bomb(26);
  return test::ChildProcess({KILN_CLI, "shader", "compile", (dir / "bomb.frag").string(), "-o",
                             (dir / "b.spv").string(), "--cache-root", (dir / "cache").string(),
                             "--shaders-compile-memory-max", "8GiB"});
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a 30000-term expression compiles to valid SPIR-V - deep recursion in glslang is not a crash") {
    test::TempDir dir("isolation");
    std::ofstream(dir / "chain.frag") << long_chain(30000);
    const auto r = test::run_process({KILN_CLI, "shader", "compile", (dir / "chain.frag").string(), "-o",
                                      (dir / "chain.spv").string(), "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto valid = test::run_process({"/usr/bin/spirv-val", (dir / "chain.spv").string()});
    CHECK_MESSAGE(valid.exit_code == 0, valid.output);
  }

  TEST_CASE(
      "a macro bomb fails with an out-of-memory message - the cook builds every other variant and writes nothing") {
    test::TempDir dir("isolation");
    const fs::path project = dir / "project";
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", project, fs::copy_options::recursive);
    std::ofstream(project / "shaders/bomb.frag") << macro_bomb(24);
    std::ofstream(project / "materials/bomb.json") << R"({"shader": "shaders/bomb"})";
    const auto r =
        test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root",
                           (dir / "cache").string(), "--shaders-compile-memory-max", "256MiB"});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(
        r.output.find("bomb.frag: error: the shader compiler ran out of memory (limit 256 MiB") != std::string::npos,
        r.output);
    CHECK(r.output.find("24/25 variants built, 1 failed") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out/manifest.json"));
  }

  TEST_CASE("a compile past shaders.compile_timeout is stopped with a message") {
    test::TempDir dir("isolation");
    std::ofstream(dir / "bomb.frag") << macro_bomb(26);
    const auto r = test::run_process({KILN_CLI, "shader", "compile", (dir / "bomb.frag").string(), "-o",
                                      (dir / "b.spv").string(), "--cache-root", (dir / "cache").string(),
                                      "--shaders-compile-timeout", "1", "--shaders-compile-memory-max", "1GiB"});
    CHECK(r.exit_code == 1);
    // Whichever limit it meets first, it is named.
    const bool timed_out =
        r.output.find("ran longer than 1 s and was stopped (shaders.compile_timeout)") != std::string::npos;
    const bool out_of_memory = r.output.find("ran out of memory (limit 1024 MiB") != std::string::npos;
    CHECK_MESSAGE((timed_out || out_of_memory), r.output);
    CHECK_FALSE(fs::exists(dir / "b.spv"));
  }

  TEST_CASE("a crashed compile worker fails its variant with the signal named - the tool lives") {
    test::TempDir dir("isolation");
    test::ChildProcess kiln = start_bomb_compile(dir);
    // The worker is the tool's child; a segfault there stands for any compiler crash.
    const std::vector<pid_t> workers = workers_of(kiln.pid());
    REQUIRE(workers.size() == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ::kill(workers[0], SIGSEGV);
    const std::string output = kiln.read_all();
    CHECK(kiln.wait() == 1);
    // The signal is named; under AddressSanitizer its handler turns the SIGSEGV into a SIGABRT.
    CHECK_MESSAGE(output.find("bomb.frag: error: the shader compiler crashed (SIG") != std::string::npos, output);
  }

  TEST_CASE("the editor survives a shader edit that blows up the compiler - the last good variants stay") {
    test::TempDir dir("isolation");
    const fs::path project = dir / "project";
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", project, fs::copy_options::recursive);
    test::EditorProcess editor({KILN_CLI, "editor", project.string(), "--json", "--stdin", "--cache-root",
                                (dir / "cache").string(), "--shaders-compile-memory-max", "256MiB"});
    REQUIRE(editor.next()["event"] == "ready");
    std::string unlit;
    {
      std::ifstream in(project / "shaders/unlit.frag");
      unlit.assign(std::istreambuf_iterator<char>(in), {});
    }
    test::write_in_place(project / "shaders/unlit.frag", macro_bomb(24));
    auto e = editor.next();
    CHECK(e["event"] == "shader_error");
    CHECK(e["errors"][0].get<std::string>().find("ran out of memory") != std::string::npos);
    CHECK(e["kept_last_good"].get<int>() >= 1);
    test::write_in_place(project / "shaders/unlit.frag", unlit);
    e = editor.next();
    CHECK(e["event"] == "shader");
    editor.process.write_line("quit");
    CHECK(editor.process.wait() == 0);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("a compile worker leaves with its tool - even in the middle of a compile") {
    test::TempDir dir("isolation");
    test::ChildProcess kiln = start_bomb_compile(dir);
    const std::vector<pid_t> workers = workers_of(kiln.pid());
    REQUIRE(workers.size() == 1);
    kiln.kill(SIGKILL);
    CHECK(kiln.wait() == 128 + SIGKILL);
    // Reparented and running, the worker sees the hang-up within its 100 ms poll.
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      gone = ::kill(workers[0], 0) != 0 || fs::exists("/proc/" + std::to_string(workers[0])) == false;
      if (!gone) {  // a zombie waiting for its new parent counts as gone
        std::ifstream stat("/proc/" + std::to_string(workers[0]) + "/stat");
        std::string line;
        std::getline(stat, line);
        const auto close = line.rfind(')');
        gone = close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
      }
    }
    CHECK(gone);
  }
}
