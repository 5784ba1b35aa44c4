// The tool's side of a compile worker that misbehaves: one that never answers is stopped at the
// timeout, one that announces a reply larger than any compile makes is dropped before anything
// is allocated for it. Stand-in workers (shell scripts) do what kiln-shader-worker never would.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "kiln/shadercache/isolated_compiler.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using namespace kiln::shadercache;
namespace fs = std::filesystem;

namespace {

fs::path stand_in_worker(const test::TempDir& dir, const std::string& body) {
  const fs::path script = dir / "worker.sh";
  test::spit_script(script, body);
  return script;
}

GlslInput some_shader() {
  return {.file = "shaders/some.frag", .source = "#version 450\nvoid main() {}\n", .stage = Stage::kFragment};
}

}  // namespace

TEST_SUITE("shadercache") {
  TEST_CASE("a worker that never answers is stopped at the compile timeout - the variant fails naming the setting") {
    test::TempDir dir("workers");
    IsolatedCompiler compiler({.mode = CompileIsolation::Mode::kProcess,
                               .worker = stand_in_worker(dir, "exec sleep 60"),
                               .timeout = std::chrono::seconds(1)});
    const auto started = std::chrono::steady_clock::now();
    auto compiled = compiler.compile(some_shader());
    REQUIRE_FALSE(compiled);
    CHECK(compiled.error().message.find("shaders/some.frag") != std::string::npos);
    CHECK_MESSAGE(compiled.error().message.find("ran longer than 1 s and was stopped (shaders.compile_timeout)") !=
                      std::string::npos,
                  compiled.error().message);
    // Stopped, not waited for: well before the stand-in's own 60 s.
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
    CHECK(compiler.stats().workers_lost == 1);
  }

  TEST_CASE("a worker announcing a reply over the message limit is dropped - nothing is allocated for it") {
    test::TempDir dir("workers");
    // A little-endian length of 2^48 bytes on the connection (its standard input), then wait for
    // the tool to hang up.
    IsolatedCompiler compiler({.mode = CompileIsolation::Mode::kProcess,
                               .worker = stand_in_worker(dir,
                                                         "printf '\\000\\000\\000\\000\\000\\000\\001\\000' >&0\n"
                                                         "exec cat > /dev/null")});
    auto compiled = compiler.compile(some_shader());
    REQUIRE_FALSE(compiled);
    CHECK_MESSAGE(compiled.error().message.find("shaders/some.frag") != std::string::npos, compiled.error().message);
    CHECK_MESSAGE(compiled.error().message.find("the shader compiler exited with status 0") != std::string::npos,
                  compiled.error().message);
    CHECK(compiler.stats().workers_lost == 1);
  }
}
