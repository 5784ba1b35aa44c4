#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <thread>

#include "cache_entries.h"
#include "kiln/cache/hash.h"
#include "kiln/jit/inlining.h"
#include "kiln/jit/page_analysis.h"
#include "kiln/jit/page_store.h"
#include "kiln/lang/script.h"
#include "kiln/jit/vm.h"
#include "kiln/jitc/llvm_page_compiler.h"
#include "jit_store.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using namespace kiln::jit;
using namespace kiln::lang;
namespace fs = std::filesystem;

namespace {

// What a run prints, then its error if it fails.
std::string run(const Program& program, const VmOptions& options) {
  std::string out;
  Vm vm(program, options);
  vm.set_output([&](std::string_view line) { out += line; });
  if (auto s = vm.run(); !s) out += "RUNTIME ERROR: " + s.error().message;
  return out;
}
std::string run(const Program& program, JitRuntime* jit, abi::JitMode mode = abi::JitMode::kChecked) {
  return run(program, {.jit = jit, .jit_mode = mode});
}

test::StoredRuntime runtime(PageCompiler* compiler, const fs::path& cache, bool verify = false) {
  return test::stored_runtime({.compiler = compiler, .verify = verify, .synchronous = true, .hot_threshold = 1}, cache);
}

std::vector<fs::path> blobs_under(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.path().extension() == ".blob") out.push_back(e.path());
  return out;
}

// Sets KILN_BREAK for the scope of a test.
struct BreakSwitch {
  explicit BreakSwitch(const char* value) { ::setenv("KILN_BREAK", value, 1); }
  ~BreakSwitch() { ::unsetenv("KILN_BREAK"); }
};

// A page with several entries: a loop (its head), a call (its return site: g has a loop, so it is
// called, not inlined).
Program loop_program() {
  auto program = compile_script("entries.lua",
                                "function g(x)\n  local y = 0\n  for k = 1, 2 do y = y + x end\n  return y\nend\n"
                                "local s = 0\n"
                                "for i = 1, 50 do\n  s = s + g(i)\n  local j = 0\n  while j < 3 do j = j + 1 end\nend\n"
                                "print(s)\n");
  REQUIRE_MESSAGE(program, program.error().message);
  return std::move(*program);
}

// loop_program()'s first page with every entry, compiled for checked mode: what a store holds.
struct CompiledLoopPage {
  Program program = loop_program();
  std::size_t page = program.functions[0].first_page;
  std::vector<std::uint16_t> entries = jit_entries(program.page(page), program.entries[page]);
  CompiledPage compiled;
  std::span<const std::uint32_t> words() const { return program.page(page); }
};

CompiledLoopPage compile_loop_page(jitc::LlvmPageCompiler& compiler) {
  CompiledLoopPage p;
  auto compiled = compiler.compile({p.words(), p.entries, abi::JitMode::kChecked});
  REQUIRE_MESSAGE(compiled, compiled.error().message);
  p.compiled = std::move(*compiled);
  return p;
}

// Only the body of a function that the caller's page compiles in changes (source(body) is the
// script): the caller's page keeps its bytes but not its key, so a runtime over the old program's
// cache loads the chunk's page and compiles the caller's again, never serving its old code.
void check_caller_compiled_again(const std::function<std::string(const std::string&)>& source, std::size_t caller,
                                 const std::string& printed_before, const std::string& printed_after) {
  test::TempDir dir("jitcache");
  jitc::LlvmPageCompiler compiler;
  auto before = compile_script("edit.lua", source("return x * 2"));
  auto after = compile_script("edit.lua", source("return (x + 1000) * 3"));
  REQUIRE((before && after));
  REQUIRE(before->functions[caller].name == "caller");
  const std::size_t caller_page = before->functions[caller].first_page;
  REQUIRE(std::equal(before->page(caller_page).begin(), before->page(caller_page).end(),
                     after->page(caller_page).begin()));  // the caller's page is the same bytes ...
  CHECK(page_key_words(*before, caller_page, value_callees(*before)) !=
        page_key_words(*after, caller_page, value_callees(*after)));  // ... its key is not
  {
    auto jit = runtime(&compiler, dir / "cache");
    CHECK(run(*before, jit.get()) == printed_before);
    jit->flush();
  }
  auto jit = runtime(&compiler, dir / "cache");
  const std::string expected = run(*after, nullptr);
  CHECK(expected == printed_after);
  CHECK(run(*after, jit.get()) == expected);
  const JitStats stats = jit->stats();
  CHECK(stats.loaded == 1);    // the chunk's page (it calls the caller, which is not compiled in)
  CHECK(stats.compiled == 1);  // the caller's page, for the new code; the edited function never runs on its own
  CHECK(stats.requested == 2);
}

}  // namespace

TEST_SUITE("jit") {
  // Verification, part 1: the page compare is load-bearing. Scripts that differ only
  // in a constant collide under the weak key; with the compare every result is still right (the
  // collisions are rejected and counted); without it a wrong result appears.
  TEST_CASE("fault injection - a weak key alone is caught by the compare - skipping the compare gives wrong results") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    auto script = [](int k) {
      return "local x = 0\nfor i = 1, 10 do x = x + " + std::to_string(k) + " end\nprint(x)\n";
    };
    auto run_all = [&](const fs::path& cache, std::uint64_t& rejected) {
      int wrong = 0;
      rejected = 0;
      for (int k = 1; k <= 5; ++k) {
        auto program = compile_script("k.lua", script(k));
        REQUIRE(program);
        auto jit = runtime(&compiler, cache);
        if (run(*program, jit.get()) != std::to_string(10 * k) + "\n") ++wrong;
        jit->flush();
        rejected += jit->stats().compare_rejected;
      }
      return wrong;
    };
    std::uint64_t rejected = 0;
    {
      BreakSwitch weak("jitcache-weak-key");
      CHECK(run_all(dir / "weak", rejected) == 0);
      CHECK(rejected >= 4);  // every later script's page collided with an earlier one's
    }
    {
      BreakSwitch both("jitcache-weak-key,jitcache-skip-compare");
      CHECK(run_all(dir / "both", rejected) > 0);
    }
  }

  TEST_CASE("a changed build id or fingerprint serves nothing old") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    const CompiledLoopPage p = compile_loop_page(compiler);
    const auto blobs = test::open_store(dir / "cache", {.background_writes = false});
    auto open = [&](const std::string& build, const std::string& fingerprint) {
      auto store = PageStore::open({.store = blobs.get(), .build_id = build, .fingerprint = fingerprint});
      REQUIRE_MESSAGE(store, store.error().message);
      return std::move(*store);
    };
    open("build-a", "fp-1")->put(p.words(), abi::JitMode::kChecked, p.compiled);
    CHECK(open("build-a", "fp-1")->find(p.words(), p.entries, abi::JitMode::kChecked).hit);
    CHECK_FALSE(open("build-b", "fp-1")->find(p.words(), p.entries, abi::JitMode::kChecked).hit);
    CHECK_FALSE(open("build-a", "fp-2")->find(p.words(), p.entries, abi::JitMode::kChecked).hit);
    CHECK_FALSE(open("build-a", "fp-1")->find(p.words(), p.entries, abi::JitMode::kUnchecked).hit);
  }

  TEST_CASE("a page file copied into another fingerprint's namespace is refused there and deleted") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    const CompiledLoopPage p = compile_loop_page(compiler);
    const auto blobs = test::open_store(dir / "cache", {.background_writes = false});
    auto fp1 = PageStore::open({.store = blobs.get(), .build_id = "build", .fingerprint = "fp-1"});
    auto fp2 = PageStore::open({.store = blobs.get(), .build_id = "build", .fingerprint = "fp-2"});
    REQUIRE(fp1);
    REQUIRE(fp2);
    (*fp1)->put(p.words(), abi::JitMode::kChecked, p.compiled);
    // The same relative path under the other namespace: the same store key, so the MAC matches.
    const fs::path from = (*fp1)->entry_path(p.words(), abi::JitMode::kChecked);
    const fs::path to = (*fp2)->entry_path(p.words(), abi::JitMode::kChecked);
    REQUIRE(fs::relative(from, (*fp1)->namespace_dir()) == fs::relative(to, (*fp2)->namespace_dir()));
    fs::create_directories(to.parent_path());
    fs::copy_file(from, to);
    const PageLookup found = (*fp2)->find(p.words(), p.entries, abi::JitMode::kChecked);
    CHECK_FALSE(found.hit);
    CHECK(found.corrupt == 1);
    CHECK_FALSE(fs::exists(to));
    CHECK((*fp1)->find(p.words(), p.entries, abi::JitMode::kChecked).hit);  // at home it serves
  }

  TEST_CASE("one store keeps both modes of a page at once - a fresh runtime loads each and compiles nothing") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    const Program program = loop_program();
    const std::string expected = run(program, nullptr);
    {
      auto jit = runtime(&compiler, dir / "cache");
      CHECK(run(program, jit.get(), abi::JitMode::kChecked) == expected);
      CHECK(run(program, jit.get(), abi::JitMode::kUnchecked) == expected);
      jit->flush();
    }
    auto jit = runtime(&compiler, dir / "cache");
    CHECK(run(program, jit.get(), abi::JitMode::kChecked) == expected);
    CHECK(run(program, jit.get(), abi::JitMode::kUnchecked) == expected);
    const JitStats s = jit->stats();
    CHECK(s.compiled == 0);
    CHECK(s.loaded == 2 * program.page_count());
    CHECK(s.corrupt == 0);
  }

  TEST_CASE(
      "fault injection - a weak key with callers that differ only in an inlined callee is caught by the compare") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    // The caller's own words are the same in every script; only the callee compiled into it differs.
    auto script = [](int k) {
      return "function callee(x)\n  return x * " + std::to_string(k) +
             "\nend\nfunction caller(n)\n  local s = 0\n  for i = 1, n do s = s + callee(i) end\n  return s\nend\n"
             "print(caller(10))\n";
    };
    BreakSwitch weak("jitcache-weak-key");
    std::uint64_t rejected = 0;
    for (int k = 1; k <= 5; ++k) {
      auto program = compile_script("k.lua", script(k));
      REQUIRE(program);
      REQUIRE(inlinable(std::span<const std::uint32_t>(program->code(1), program->functions[1].words)));
      auto jit = runtime(&compiler, dir / "cache");
      CHECK(run(*program, jit.get()) == std::to_string(55 * k) + "\n");
      jit->flush();
      rejected += jit->stats().compare_rejected;
    }
    CHECK(rejected >= 4);  // every later caller's page collided with an earlier one's
  }

  TEST_CASE("a variant serves subsets of its entries - a miss compiles the union - which replaces what it covers") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    const Program program = loop_program();
    const std::size_t page = program.functions[0].first_page;
    const auto all = jit_entries(program.page(page), program.entries[page]);
    REQUIRE(all.size() >= 3);
    const std::vector<std::uint16_t> first{all[0], all[1]}, other{all[0], all[2]};
    const auto blobs = test::open_store(dir / "cache", {.background_writes = false});
    auto store =
        PageStore::open({.store = blobs.get(), .build_id = jit_build_id(), .fingerprint = compiler.fingerprint()});
    REQUIRE(store);
    auto compiled = compiler.compile({program.page(page), first, abi::JitMode::kChecked});
    REQUIRE(compiled);
    (*store)->put(program.page(page), abi::JitMode::kChecked, *compiled);
    CHECK((*store)->find(program.page(page), std::vector<std::uint16_t>{all[1]}, abi::JitMode::kChecked).hit);
    CHECK((*store)->find(program.page(page), first, abi::JitMode::kChecked).hit);
    const PageLookup missed = (*store)->find(program.page(page), other, abi::JitMode::kChecked);
    CHECK_FALSE(missed.hit);
    CHECK(missed.variant_entries == first);

    // The runtime compiles the union of the request and the cached variant; the new variant covers
    // the old one, which is deleted.
    auto jit = runtime(&compiler, dir / "cache");
    auto slot = jit->request(program.page(page), other, abi::JitMode::kChecked);
    REQUIRE(slot->code.load());
    for (std::uint16_t e : {all[0], all[1], all[2]}) CHECK(slot->code.load()->entries.test(e));
    jit->flush();
    const auto left = blobs_under((*store)->namespace_dir());
    CHECK(left.size() == 1);
    CHECK(left == std::vector<fs::path>{(*store)->entry_path(program.page(page), abi::JitMode::kChecked)});
    CHECK((*store)
              ->find(program.page(page), std::vector<std::uint16_t>{all[0], all[1], all[2]}, abi::JitMode::kChecked)
              .hit);
  }

  TEST_CASE("a tampered blob with a recomputed entry checksum is rejected by the MAC - deleted - and recompiled") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    const Program program = loop_program();
    const std::string expected = run(program, nullptr);
    {
      auto jit = runtime(&compiler, dir / "cache");
      CHECK(run(program, jit.get()) == expected);
      jit->flush();
    }
    const auto blobs = blobs_under(dir / "cache");
    REQUIRE_FALSE(blobs.empty());
    // Flip a byte of the code and recompute the store entry's checksum around it, as a forger who
    // knows the format would: the entry reads back intact, only the MAC can tell.
    std::string bytes = test::blob_payload(blobs[0]);
    // The page file: a 320-byte header, the page, the code, a 16-byte MAC.
    constexpr std::size_t kHeader = 64 + 256, kPage = 4096;
    bytes[kHeader + kPage + 3] = char(bytes[kHeader + kPage + 3] ^ 0x01);
    test::rewrite_blob_payload(blobs[0], bytes);

    auto jit = runtime(&compiler, dir / "cache");
    CHECK(run(program, jit.get()) == expected);
    const JitStats s = jit->stats();
    CHECK(s.mac_rejected == 1);
    CHECK(s.corrupt == 0);
    CHECK(s.compiled >= 1);  // the rejected page was compiled again, never executed from the blob
  }

  TEST_CASE("a page whose code needs a libcall runs but is never stored") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler({.frem_libcall = true});
    auto program = compile_script("mod.lua", "local s = 0\nfor i = 1, 100 do s = s + i % 7 end\nprint(s)\n");
    REQUIRE(program);
    auto jit = runtime(&compiler, dir / "cache");
    CHECK(run(*program, jit.get()) == run(*program, nullptr));
    jit->flush();
    const JitStats s = jit->stats();
    CHECK(s.compiled >= 1);
    CHECK(s.not_cacheable >= 1);
    CHECK(s.not_cacheable == s.compiled - s.stored);
    CHECK(blobs_under(dir / "cache").size() == s.stored);
  }

  TEST_CASE("compiled code for one mode never covers the other - each page is compiled once per mode") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    const Program program = loop_program();
    const std::string expected = run(program, nullptr);
    auto jit = runtime(&compiler, {});
    for (int round = 0; round < 3; ++round) {
      CHECK(run(program, jit.get(), abi::JitMode::kChecked) == expected);
      CHECK(run(program, jit.get(), abi::JitMode::kUnchecked) == expected);
    }
    const JitStats s = jit->stats();
    CHECK(s.requested == 2 * program.page_count());
    CHECK(s.compiled == s.requested);  // no page compiled again: neither mode "covered" by the other, nor asked twice
  }

  TEST_CASE("verify mode recompiles every hit and finds the cached code identical") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    const Program program = loop_program();
    {
      auto jit = runtime(&compiler, dir / "cache");
      run(program, jit.get());
      jit->flush();
    }
    auto jit = runtime(&compiler, dir / "cache", true);
    run(program, jit.get());
    CHECK(jit->stats().loaded >= 1);
    CHECK(jit->stats().verify_mismatches == 0);
  }

  TEST_CASE("budgets and cancellation hold in compiled loops") {
    jitc::LlvmPageCompiler compiler;
    auto jit = runtime(&compiler, {});
    auto program = compile_script("loop.lua", "local i = 0\nwhile true do\n  i = i + 1\nend");
    REQUIRE(program);
    {
      Vm vm(*program, {.instruction_budget = 100000, .jit = jit.get()});
      auto s = vm.run();
      REQUIRE_FALSE(s);
      CHECK(s.error().message == "loop.lua:2: instruction budget exhausted (runaway script?)");
      CHECK(vm.instructions_counted() == 100001);  // the same count as the interpreter
    }
    CHECK(jit->stats().compiled >= 1);
    Vm vm(*program, {.jit = jit.get()});
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      vm.cancel();
    });
    auto s = vm.run();
    canceller.join();
    REQUIRE_FALSE(s);
    CHECK(s.error().message == "loop.lua:2: cancelled");

    // A loop whose loads the compiler keeps out of it (array bounds, an inlined callee's): the
    // cancellation flag is still read on every backward branch.
    auto reads = compile_script("reads.lua",
                                "local t = {1, 2, 3}\nlocal function at(a, i) return a[i] end\nlocal s = 0\n"
                                "while true do\n  for i = 1, 3 do s = s + at(t, i) + t[i] end\nend\n");
    REQUIRE(reads);
    Vm spinning(*reads, {.jit = jit.get()});
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      spinning.cancel();
    });
    s = spinning.run();
    stopper.join();
    REQUIRE_FALSE(s);
    CHECK(s.error().message.find(": cancelled") != std::string::npos);
    CHECK(jit->stats().compiled >= 2);
  }

  TEST_CASE("calls between compiled pages behave as interpreted - deep recursion - errors - budgets - host calls") {
    jitc::LlvmPageCompiler compiler;
    auto jit = runtime(&compiler, {});
    struct Outcome {
      std::string output, error;
      std::uint64_t counted = 0;
    };
    auto outcome = [&](const Program& program, JitRuntime* runtime, std::uint64_t budget) {
      Outcome o;
      Vm vm(program, {.instruction_budget = budget, .jit = runtime});
      vm.set_output([&](std::string_view line) { o.output += line; });
      vm.bind("twice", [](std::span<const double> args) { return 2 * args[0]; });
      if (auto s = vm.run(); !s) o.error = s.error().message;
      o.counted = vm.instructions_counted();
      return o;
    };
    const std::vector<HostSignature> host = {{"twice", {Type::kNumber}, Type::kNumber}};
    // Deeper than calls nest on the machine stack; a callee that prints, calls the host, returns
    // nothing, and one that fails at depth; recursion that never ends.
    const std::string depth =
        "function d(n)\n  if n == 0 then return 0 end\n  return 1 + d(n - 1)\nend\n"
        "function shout(n)\n  if n % 1000 == 0 then print(n) end\nend\n"
        "function h(n)\n  shout(n)\n  return engine.twice(n)\nend\n"
        "function fail(a, n)\n  if n == 0 then return a[n] end\n  return fail(a, n - 1)\nend\n"
        "function forever(n)\n  if n < 0 then return 0 end return 1 + forever(n + 1)\nend\n";
    const std::string deep = depth + "local s = 0\nfor i = 1, 3000 do s = s + h(i) end\nprint(s, d(5000))\n";
    const std::string failing = depth + "print(d(300))\nprint(fail({1, 2}, 250))\n";
    const std::string overflowing = depth + "print(forever(1))\n";
    // Recursion in tail position, ten times deeper than the call depth: it runs in one frame.
    const std::string tail =
        depth +
        "function down(n, acc)\n  if n == 0 then return acc end\n  return down(n - 1, acc + n)\nend\n"
        "function hop(n) if n == 0 then return 0 end return down(n, 0) + hop(n - 1) end\n"
        "print(down(100000, 0), hop(30))\n";
    // Calls compiled into the caller (small leaves): results, an array error inside one, a call
    // before the callee's definition.
    const std::string inlined = depth +
                                "local data = {1, 2, 3}\n"
                                "function sq(x) return x * x end\n"
                                "function at(a, i) return a[i] end\n"
                                "function pick(x) if x < 1 then return 1 end if x > 3 then return 3 end return x end\n"
                                "function walk(n)\n  local s = 0\n"
                                "  for i = 1, n do s = s + sq(i) % 7 + at(data, pick(i % 5)) end\n  return s\nend\n"
                                "print(walk(5000))\n"
                                "print(at(data, walk(2)))\n";
    const std::string undefined = "print(early(2))\nfunction early(x) return x + 1 end\n";
    for (const std::string& source : {deep, failing, overflowing, tail, inlined, undefined}) {
      auto program = compile_script("calls.lua", source, host);
      REQUIRE_MESSAGE(program, program.error().message);
      for (std::uint64_t budget : {std::uint64_t{0}, std::uint64_t{2'000'000}, std::uint64_t{7'777}}) {
        CAPTURE(budget);
        const Outcome interpreted = outcome(*program, nullptr, budget);
        const Outcome compiled = outcome(*program, jit.get(), budget);
        CHECK(compiled.output == interpreted.output);
        CHECK(compiled.error == interpreted.error);
        if (budget) CHECK(compiled.counted == interpreted.counted);  // counted against a budget only
      }
    }
    // What the interpreter says, checked once by hand.
    auto program = compile_script("calls.lua", failing, host);
    REQUIRE(program);
    const Outcome failed = outcome(*program, jit.get(), 0);
    CHECK(failed.output == "300\n");
    CHECK_MESSAGE(failed.error.rfind("calls.lua:13: array index 0 out of range", 0) == 0, failed.error);
    program = compile_script("calls.lua", overflowing, host);
    REQUIRE(program);
    CHECK(outcome(*program, jit.get(), 0).error == "calls.lua:17: stack overflow (call depth over 10000)");
    program = compile_script("calls.lua", tail, host);
    REQUIRE(program);
    CHECK(outcome(*program, jit.get(), 0).output == "5000050000\t4960\n");  // as lua5.1 prints it
    program = compile_script("calls.lua", inlined, host);
    REQUIRE(program);
    const Outcome bailed = outcome(*program, jit.get(), 0);
    CHECK(bailed.output == "20001\n");  // as lua5.1 prints it
    CHECK_MESSAGE(bailed.error.rfind("calls.lua:21: array index 8 out of range", 0) == 0, bailed.error);
    program = compile_script("calls.lua", undefined, host);
    REQUIRE(program);
    CHECK(outcome(*program, jit.get(), 0).error ==
          "calls.lua:1: attempt to call function 'early' before its definition");
    CHECK(jit->stats().compiled >= 5);
  }

  TEST_CASE("compiled array reads and writes refuse every index the interpreter refuses - with its message") {
    jitc::LlvmPageCompiler compiler;
    auto jit = runtime(&compiler, {});
    const std::vector<std::string> indices = {"1",     "3",      "0",      "-1",      "0.5",   "2.5",
                                              "4",     "2 ^ 53", "2 ^ 63", "-2 ^ 63", "1e300", "-1e300",
                                              "1 / 0", "-1 / 0", "0 / 0",  "3 - 1e-9"};
    for (const std::string& index : indices) {
      for (const char* access : {"s = s + t[idx[k]]", "t[idx[k]] = s"}) {
        CAPTURE(index);
        CAPTURE(access);
        const std::string source = "local t = {10, 20, 30}\nlocal idx = {1, 2, " + index +
                                   "}\nlocal s = 0\nfor round = 1, 20 do\n  for k = 1, 3 do " + access +
                                   " end\nend\nprint(s, t[1], t[2], t[3])\n";
        auto program = compile_script("index.lua", source);
        REQUIRE_MESSAGE(program, program.error().message);
        const std::string interpreted = run(*program, nullptr);
        CHECK(run(*program, jit.get()) == interpreted);
        if (index == "0 / 0") CHECK(interpreted.find("RUNTIME ERROR: index.lua:5: array index") == 0);
      }
    }
    CHECK(jit->stats().compiled >= 1);
  }

  TEST_CASE(
      "compiled appends give the interpreter's arrays - and collect and stop at the memory budget where it does") {
    jitc::LlvmPageCompiler compiler;
    auto jit = runtime(&compiler, {});
    auto outcome = [&](const Program& program, JitRuntime* runtime, std::uint64_t memory_max) {
      return run(program, {.memory_max = memory_max, .jit = runtime});
    };
    // Appends by index and by a table constructor inside loops; sums and sizes tell the contents.
    const std::string grow =
        "local t = {}\nlocal s = 0\nfor i = 1, 3000 do\n  t[#t + 1] = i * 2\n  local p = {i, i + 1, i + 2}\n"
        "  s = s + p[3] + #p\nend\nfor i = 1, #t do s = s + t[i] end\nprint(#t, s)\n";
    const std::string runaway =
        "local t = {}\nlocal i = 0\nwhile true do\n  i = i + 1\n  t[#t + 1] = i\n  if i % 100 == 0 then print(i) "
        "end\nend\n";
    for (const std::string& source : {grow, runaway}) {
      auto program = compile_script("grow.lua", source);
      REQUIRE_MESSAGE(program, program.error().message);
      // A large budget (8 MiB; the default takes long under the sanitizers and tells nothing more),
      // one the growing loop crosses, and a small one: compiled appends stop where a collection is
      // due, so both collect at the same appends and stop at the same one.
      for (std::uint64_t memory_max : {std::uint64_t{8} << 20, std::uint64_t{40000}, std::uint64_t{6000}}) {
        CAPTURE(memory_max);
        CHECK(outcome(*program, jit.get(), memory_max) == outcome(*program, nullptr, memory_max));
      }
    }
    auto program = compile_script("grow.lua", grow);
    REQUIRE(program);
    CHECK(outcome(*program, jit.get(), std::uint64_t{256} << 20) == "3000\t13519500\n");  // as lua5.1 prints it
    program = compile_script("grow.lua", runaway);
    REQUIRE(program);
    // 8 KiB: the first collection is due after 1024 words, when the array holds about a thousand
    // elements and is over the budget.
    const std::string stopped = outcome(*program, jit.get(), 8192);
    CHECK_MESSAGE(stopped.starts_with("100\n200\n300\n400\n500\n600\n700\n800\n900\n"), stopped);
    CHECK_MESSAGE(stopped.find("RUNTIME ERROR: grow.lua:5: script memory budget exhausted (8.0 KiB live, over "
                               "scripts.memory_max = 8KiB)") != std::string::npos,
                  stopped);
  }

  TEST_CASE(
      "a compiled caller assumes nothing about a callee it calls - an edit of the callee alone reuses the caller's "
      "code and runs the new callee") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    // The caller calls a callee by name and through a function value; only the callee's body
    // changes (its page bytes), never the caller's. The callee has a loop: it is called, not inlined.
    auto source = [](const std::string& body) {
      return "function callee(x)\n  " + body +
             "\nend\n"
             "function caller(n)\n  local s = 0\n  local f = callee\n"
             "  for i = 1, n do s = s + callee(i) + f(i) end\n  return s\nend\n"
             "print(caller(200))\n";
    };
    auto before = compile_script("edit.lua", source("local y = 0\n  for k = 1, 2 do y = y + x end\n  return y"));
    auto after = compile_script("edit.lua", source("local y = x + 1000\n  for k = 1, 1 do y = y * 3 end\n  return y"));
    REQUIRE((before && after));
    const std::size_t caller_page = before->functions[2].first_page;
    REQUIRE(before->functions[2].name == "caller");
    REQUIRE(std::equal(before->page(caller_page).begin(), before->page(caller_page).end(),
                       after->page(caller_page).begin()));  // the caller's page is the same bytes
    {
      auto jit = runtime(&compiler, dir / "cache");
      CHECK(run(*before, jit.get()) == run(*before, nullptr));
      jit->flush();
    }
    auto jit = runtime(&compiler, dir / "cache");
    const std::string expected = run(*after, nullptr);
    CHECK(expected == "1320600\n");  // 2 * sum over i of 3 * (i + 1000)
    CHECK(run(*after, jit.get()) == expected);
    const JitStats stats = jit->stats();
    CHECK(stats.loaded >= 2);    // the chunk's and the caller's pages, from the cache
    CHECK(stats.compiled == 1);  // the callee's new page only
  }

  TEST_CASE("a caller that inlines its callee is compiled again when only the callee changes - never stale code") {
    auto source = [](const std::string& body) {
      return "function callee(x)\n  " + body +
             "\nend\n"
             "function caller(n)\n  local s = 0\n  for i = 1, n do s = s + callee(i) end\n  return s\nend\n"
             "print(caller(200))\n";
    };
    for (const std::string body : {"return x * 2", "return (x + 1000) * 3"}) {
      auto program = compile_script("edit.lua", source(body));
      REQUIRE(program);
      REQUIRE(inlinable(std::span<const std::uint32_t>(program->code(1), program->functions[1].words)));
    }
    check_caller_compiled_again(source, 2, "40200\n", "660300\n");  // sum over i of 3 * (i + 1000)
  }

  TEST_CASE("a caller that inlines a function value's callee is compiled again when only that callee changes") {
    check_caller_compiled_again(
        [](const std::string& body) {
          return "function callee(x)\n  " + body +
                 "\nend\n"
                 "function caller(f, n)\n  local s = 0\n  for i = 1, n do s = s + f(i) end\n  return s\nend\n"
                 "print(caller(callee, 200))\n";
        },
        2, "40200\n", "660300\n");
  }

  TEST_CASE("a caller that inlines a helper is compiled again when only the leaf inside the helper changes") {
    auto source = [](const std::string& body) {
      return "function leaf(x)\n  " + body +
             "\nend\n"
             "function helper(x) return leaf(x) + 1 end\n"
             "function caller(n)\n  local s = 0\n  for i = 1, n do s = s + helper(i) end\n  return s\nend\n"
             "print(caller(200))\n";
    };
    auto program = compile_script("edit.lua", source("return x"));
    REQUIRE(program);
    REQUIRE(inlinable_calling_leaves(*program, 2));  // helper, with the leaf inside
    check_caller_compiled_again(source, 3, "40400\n", "660500\n");
  }

  TEST_CASE("editing one function of a 40-function script reuses the cached code of the other pages") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    auto source = [](int edit) {
      std::string s;
      for (int f = 0; f < 40; ++f) {
        s += "function f" + std::to_string(f) + "(x)\n  local y = x * " + std::to_string(f + 1) + "\n";
        if (f == 17) s += "  y = y + " + std::to_string(edit) + "\n";
        s += "  for i = 1, 3 do y = y + i end\n  return y\nend\n";
      }
      s += "local total = 0\n";
      for (int f = 0; f < 40; ++f) s += "total = total + f" + std::to_string(f) + "(" + std::to_string(f) + ")\n";
      return s + "print(total)\n";
    };
    auto before = compile_script("forty.lua", source(1)), after = compile_script("forty.lua", source(2));
    REQUIRE((before && after));
    {
      auto jit = runtime(&compiler, dir / "cache");
      run(*before, jit.get());
      jit->flush();
    }
    auto jit = runtime(&compiler, dir / "cache");
    CHECK(run(*after, jit.get()) == run(*after, nullptr));
    const JitStats s = jit->stats();
    CHECK(s.requested == after->page_count());
    CHECK(s.loaded * 10 >= s.requested * 9);
    CHECK(s.compiled <= 2);  // the edited function's page (and the chunk, whose constant changed)
  }

  TEST_CASE("pruning keeps the size cap and the newest builds") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    const Program program = loop_program();
    std::map<std::string, fs::path> namespaces;
    for (const char* build : {"b1", "b2", "b3", "b4"}) {
      const auto blobs = test::open_store(dir / "cache", {.background_writes = false});
      auto store = PageStore::open({.store = blobs.get(), .build_id = build, .fingerprint = "fp"});
      REQUIRE(store);
      namespaces[build] = (*store)->namespace_dir();
      for (std::size_t p = 0; p < program.page_count(); ++p) {
        auto compiled = compiler.compile(
            {program.page(p), jit_entries(program.page(p), program.entries[p]), abi::JitMode::kChecked});
        REQUIRE(compiled);
        (*store)->put(program.page(p), abi::JitMode::kChecked, *compiled);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // distinct namespace times
    }
    {
      const auto blobs = test::open_store(dir / "cache", {.keep_namespaces = 2, .background_writes = false});
      auto store = PageStore::open({.store = blobs.get(), .build_id = "b4", .fingerprint = "fp"});
      REQUIRE(store);
      REQUIRE((*store)->prune());
    }
    CHECK_FALSE(fs::exists(namespaces["b1"]));
    CHECK_FALSE(fs::exists(namespaces["b2"]));
    CHECK(fs::exists(namespaces["b3"]));
    CHECK(fs::exists(namespaces["b4"]));

    std::uint64_t total = 0, one = 0;
    for (const auto& b : blobs_under(dir / "cache")) total += fs::file_size(b), one = fs::file_size(b);
    const auto capped_blobs =
        test::open_store(dir / "cache", {.max_bytes = total - one, .keep_namespaces = 2, .background_writes = false});
    auto capped = PageStore::open({.store = capped_blobs.get(), .build_id = "b4", .fingerprint = "fp"});
    REQUIRE(capped);
    auto removed = (*capped)->prune();
    REQUIRE(removed);
    CHECK(*removed >= 1);
    std::uint64_t after = 0;
    for (const auto& b : blobs_under(dir / "cache")) after += fs::file_size(b);
    CHECK(after <= total - one);
  }

  TEST_CASE("the cache key file must be the user's own and private") {
    test::TempDir dir("jitcache");
    {
      const auto blobs = test::open_store(dir / "cache");
      REQUIRE(PageStore::open({.store = blobs.get(), .build_id = "b", .fingerprint = "fp"}));
    }
    struct stat st;
    const fs::path key = test::page_cache_key(dir / "cache");
    REQUIRE(::stat(key.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    ::chmod(key.c_str(), 0644);
    const auto blobs = test::open_store(dir / "cache");
    auto refused = PageStore::open({.store = blobs.get(), .build_id = "b", .fingerprint = "fp"});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message == key.string() + ": the cache key must belong to this user with mode 0600");
  }
}

TEST_SUITE("jit/concurrent") {
  TEST_CASE("two threads run scripts on one runtime while its pool compiles and publishes pages") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    auto made = test::stored_runtime({.compiler = &compiler, .compile_threads = 2, .hot_threshold = 2}, dir / "cache");
    JitRuntime& jit = *made.get();
    const Program program = loop_program();
    const std::string expected = run(program, nullptr);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 20; ++i)
          if (run(program, &jit, i % 2 ? abi::JitMode::kChecked : abi::JitMode::kUnchecked) != expected) ++wrong;
      });
    for (auto& t : threads) t.join();
    jit.flush();
    CHECK(wrong == 0);
    CHECK(jit.stats().compiled + jit.stats().loaded >= 1);
    CHECK(jit.stats().compiled <= 2 * program.page_count());  // once per page and mode, whoever asked
  }
}

TEST_SUITE("jit") {
  // Towards AOT: a cook compiles every page with every entry into the cache; a runtime
  // without a compiler (the player's) then runs the scripts with zero compiles.
  TEST_CASE("precompiled pages let a runtime without a compiler run every corpus script compiled") {
    test::TempDir dir("jitcache");
    jitc::LlvmPageCompiler compiler;
    std::vector<Program> programs;
    for (const auto& e : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "tests/jit/scripts"))
      if (e.path().extension() == ".lua") {
        auto p = compile_script_file(e.path().string());
        REQUIRE(p);
        programs.push_back(std::move(*p));
      }
    {
      auto cook = runtime(&compiler, dir / "cache");
      for (const auto& p : programs) CHECK(cook->precompile(p, abi::JitMode::kChecked) == p.page_count());
    }
    auto player = test::stored_runtime({.fingerprint = compiler.fingerprint(), .hot_threshold = 1}, dir / "cache");
    for (const auto& p : programs) CHECK(run(p, player.get()) == run(p, nullptr));
    const JitStats s = player->stats();
    CHECK(s.compiled == 0);
    CHECK(s.compile_failed == 0);
    CHECK(s.loaded == s.requested);
    CHECK(s.interpreted == 0);

    const auto blobs = test::open_store(dir / "cache");
    auto no_fingerprint = JitRuntime::create({.store = blobs.get()});
    REQUIRE_FALSE(no_fingerprint);
    CHECK(no_fingerprint.error().message ==
          "a page cache without a compiler needs the fingerprint of the compiler that filled it");
  }
}

#include "kiln/jit/host_features.h"

TEST_SUITE("jit") {
  TEST_CASE("the features a compiler fingerprint needs are checked against this CPU without LLVM") {
    // The fingerprint of this machine's own compiler needs nothing this CPU lacks.
    CHECK(missing_cpu_features(jitc::LlvmPageCompiler().fingerprint()).empty());
    // A feature reported missing is exactly one this CPU does not have; unknown names are not features.
    const auto missing = missing_cpu_features("llvm 14; O2; x86_64 cpu +sse2,+avx512f,+madeup,-avx2");
    CHECK(std::find(missing.begin(), missing.end(), "madeup") == missing.end());
    CHECK(std::find(missing.begin(), missing.end(), "avx2") == missing.end());  // "-" disables, never required
    CHECK((std::find(missing.begin(), missing.end(), "avx512f") != missing.end()) ==
          !__builtin_cpu_supports("avx512f"));
  }
}
