// The LLVM page compiler in kiln-page-worker processes (IsolatedPageCompiler): what a worker
// compiles is what compiling here gives; a worker compiles under the tool's fingerprint or not at
// all; a worker that is lost costs the page a message, not the tool.
#include <doctest/doctest.h>

#include "../../engine/jit/src/kept_fingerprint.h"
#include "../../engine/jit/src/page_wire.h"
#include "jit_store.h"
#include "kiln/jit/aot_pages.h"
#include "kiln/jit/isolated_page_compiler.h"
#include "kiln/jit/page_analysis.h"
#include "kiln/jitc/llvm_page_compiler.h"
#include "kiln/lang/script.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using namespace kiln::jit;
namespace fs = std::filesystem;

namespace {

fs::path page_worker() { return fs::path(KILN_CLI).parent_path() / "kiln-page-worker"; }

// A page with several entries: a loop and a call's return site.
struct LoopPage {
  Program program;
  std::size_t page = 0;
  std::vector<std::uint16_t> entries;
  PageRequest request() const { return {program.page(page), entries, abi::JitMode::kChecked}; }
};

LoopPage loop_page() {
  auto program = lang::compile_script("workers.lua",
                                      "function g(x)\n  local y = 0\n  for k = 1, 2 do y = y + x end\n  return y\nend\n"
                                      "local s = 0\nfor i = 1, 50 do\n  s = s + g(i)\nend\nprint(s)\n");
  REQUIRE_MESSAGE(program, program.error().message);
  LoopPage p{std::move(*program)};
  p.page = p.program.functions[0].first_page;
  p.entries = jit_entries(p.program.page(p.page), p.program.entries[p.page]);
  return p;
}

// A stand-in worker: a shell script that does what kiln-page-worker never would.
fs::path stand_in_worker(const fs::path& dir, const std::string& body) {
  const fs::path path = dir / "stand-in-worker";
  test::spit_script(path, body);
  return path;
}

}  // namespace

TEST_SUITE("jit") {
  TEST_CASE("a page compiled in a kiln-page-worker is byte for byte the page compiled here - workers stop when told") {
    const LoopPage p = loop_page();
    jitc::LlvmPageCompiler here;
    auto isolated = IsolatedPageCompiler::create({.worker = page_worker()});
    REQUIRE_MESSAGE(isolated, isolated.error().message);
    CHECK((*isolated)->fingerprint() == here.fingerprint());
    auto expected = here.compile(p.request());
    auto compiled = (*isolated)->compile(p.request());
    REQUIRE_MESSAGE(expected, expected.error().message);
    REQUIRE_MESSAGE(compiled, compiled.error().message);
    CHECK(compiled->cacheable);
    CHECK(!compiled->code.empty());
    CHECK(compiled->code == expected->code);
    CHECK(compiled->function_offset == expected->function_offset);
    CHECK(compiled->alignment == expected->alignment);
    CHECK(compiled->entries == expected->entries);
    CHECK(compiled->used_words == expected->used_words);
    // The worker that answered is kept for the next page.
    REQUIRE((*isolated)->compile(p.request()));
    CHECK((*isolated)->stats().started == 1);
    CHECK((*isolated)->stats().idle == 1);
    CHECK((*isolated)->failure().empty());
    // Stopped when the tool is done with them; a later compile starts one again.
    (*isolated)->stop_workers();
    CHECK((*isolated)->stats().idle == 0);
    auto again = (*isolated)->compile(p.request());
    REQUIRE_MESSAGE(again, again.error().message);
    CHECK(again->code == expected->code);
    CHECK((*isolated)->stats().started == 2);
  }

  TEST_CASE("a kept fingerprint starts no page worker - a worker refuses another fingerprint and keeps its own") {
    test::TempDir dir("pageworkers");
    const LoopPage p = loop_page();
    const std::string actual = jitc::LlvmPageCompiler().fingerprint();
    const auto store = test::open_store(dir / "cache", {.background_writes = false});
    const KeptFingerprint kept(store.get(), 2, false);
    // What an older LLVM left kept: the keys of this run name it.
    kept.keep(actual + " older");
    auto isolated = IsolatedPageCompiler::create({.worker = page_worker(), .store = store.get()});
    REQUIRE_MESSAGE(isolated, isolated.error().message);
    CHECK((*isolated)->fingerprint() == actual + " older");
    CHECK((*isolated)->stats().started == 0);
    auto refused = (*isolated)->compile(p.request());
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("fingerprint changed") != std::string::npos);
    CHECK((*isolated)->failure() == refused.error().message);
    CHECK(kept.read() == actual);  // for the next run
    auto next = IsolatedPageCompiler::create({.worker = page_worker(), .store = store.get()});
    REQUIRE_MESSAGE(next, next.error().message);
    CHECK((*next)->fingerprint() == actual);
    CHECK((*next)->compile(p.request()));
  }

  TEST_CASE("a page worker that crashes or cannot start fails with a message naming how - never the tool") {
    test::TempDir dir("pageworkers");
    const LoopPage p = loop_page();
    const fs::path crashing = stand_in_worker(dir.path(), "head -c 8 >/dev/null; kill -SEGV $$");
    // Nothing kept: the worker is asked its fingerprint, and is lost starting.
    auto unkept = IsolatedPageCompiler::create({.worker = crashing});
    REQUIRE_FALSE(unkept);
    CHECK(unkept.error().message == "the script compiler crashed (SIGSEGV) starting");

    const auto store = test::open_store(dir / "cache", {.background_writes = false});
    KeptFingerprint(store.get(), 2, false).keep(jitc::LlvmPageCompiler().fingerprint());
    auto isolated = IsolatedPageCompiler::create({.worker = crashing, .store = store.get()});
    REQUIRE_MESSAGE(isolated, isolated.error().message);
    auto lost = (*isolated)->compile(p.request());
    REQUIRE_FALSE(lost);
    const std::string page = aot_page_id(p.program.page(p.page), abi::JitMode::kChecked);
    CHECK(lost.error().message == "the script compiler crashed (SIGSEGV) compiling page " + page);
    CHECK((*isolated)->failure() == lost.error().message);
    CHECK((*isolated)->stats().lost == 1);

    auto missing = IsolatedPageCompiler::create({.worker = dir / "no-such-worker", .store = store.get()});
    REQUIRE_MESSAGE(missing, missing.error().message);
    auto unstarted = (*missing)->compile(p.request());
    REQUIRE_FALSE(unstarted);
    CHECK(unstarted.error().message.find("cannot start the script compile worker " +
                                         (dir / "no-such-worker").string()) == 0);
    CHECK(!(*missing)->failure().empty());
  }

  TEST_CASE("a page worker that sends what cannot be read is not asked again") {
    test::TempDir dir("pageworkers");
    const LoopPage p = loop_page();
    // A frame of one byte that is no reply, for every request.
    const fs::path garbling = stand_in_worker(
        dir.path(), "while head -c 8 >/dev/null; do printf '\\001\\000\\000\\000\\000\\000\\000\\000\\377' >&0; done");
    const auto store = test::open_store(dir / "cache", {.background_writes = false});
    KeptFingerprint(store.get(), 2, false).keep(jitc::LlvmPageCompiler().fingerprint());
    auto isolated = IsolatedPageCompiler::create({.worker = garbling, .store = store.get()});
    REQUIRE_MESSAGE(isolated, isolated.error().message);
    const std::string page = aot_page_id(p.program.page(p.page), abi::JitMode::kChecked);
    for (int i = 0; i < 2; ++i) {
      auto refused = (*isolated)->compile(p.request());
      REQUIRE_FALSE(refused);
      CHECK(refused.error().message ==
            "the script compile worker sent a reply that cannot be read, compiling page " + page);
    }
    CHECK((*isolated)->stats().started == 2);  // the first was stopped, not kept
    CHECK(!(*isolated)->failure().empty());
  }

  TEST_CASE("a page worker's reply cut short or naming code it did not send is refused") {
    const LoopPage p = loop_page();
    auto compiled = jitc::LlvmPageCompiler().compile(p.request());
    REQUIRE(compiled);
    const std::string whole = page_wire::encode_reply({.kind = page_wire::ReplyKind::kCompiled, .page = *compiled});
    auto decoded = page_wire::decode_reply(whole);
    REQUIRE(decoded);
    CHECK(decoded->page.code == compiled->code);
    for (std::size_t n = 0; n < whole.size(); ++n) CHECK_FALSE(page_wire::decode_reply(whole.substr(0, n)));
    CHECK_FALSE(page_wire::decode_reply(whole + "x"));
    CompiledPage past = *compiled;
    past.function_offset = std::uint32_t(past.code.size());
    CHECK_FALSE(
        page_wire::decode_reply(page_wire::encode_reply({.kind = page_wire::ReplyKind::kCompiled, .page = past})));
    CompiledPage misaligned = *compiled;
    misaligned.alignment = 24;
    CHECK_FALSE(page_wire::decode_reply(
        page_wire::encode_reply({.kind = page_wire::ReplyKind::kCompiled, .page = misaligned})));
    // A request cut short is refused the same way (the worker exits).
    const std::string request = page_wire::encode_compile_request("fp", p.request());
    REQUIRE(page_wire::decode_request(request));
    for (std::size_t n = 0; n < request.size(); ++n) CHECK_FALSE(page_wire::decode_request(request.substr(0, n)));
  }
}
