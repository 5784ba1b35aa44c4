#include <doctest/doctest.h>

#include <signal.h>

#include <random>
#include <thread>

#include "blob_pattern.h"
#include "child_process.h"
#include "kiln/cache/blob_store.h"
#include "temp_dir.h"

using namespace kiln;
using namespace kiln::cache;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

std::uint64_t number_after(const std::string& line, const std::string& label) {
  auto at = line.find(label + "=");
  REQUIRE_MESSAGE(at != std::string::npos, "no " << label << " in: " << line);
  return std::stoull(line.substr(at + label.size() + 1));
}

}  // namespace

TEST_SUITE("cache/concurrent") {
  TEST_CASE("a writer killed with SIGKILL mid-stream leaves no torn blob") {
    test::TempDir dir("sigkill");
    const fs::path root = dir / "root";
    std::mt19937 rng(1234);
    std::uint64_t written = 0;
    for (int round = 0; round < 3; ++round) {
      test::ChildProcess writer({KILN_BLOB_STRESS, "write", root.string()});
      // Let it get well into its stream, then kill it at a random moment inside a write.
      for (;;) {
        auto line = writer.read_line(60s);
        REQUIRE_MESSAGE(line, "writer stopped before it wrote enough");
        written = std::max(written, number_after(*line, "written"));
        if (number_after(*line, "written") >= 64) break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
      writer.kill(SIGKILL);
      CHECK(writer.wait() == 128 + SIGKILL);
    }

    auto store = BlobStore::open({.root = root});
    REQUIRE(store);
    auto ns = (*store)->open_namespace("shaders", {{"test", "blob-stress"}});
    REQUIRE(ns);
    // Everything each writer flushed is there and sound; whatever else exists is sound too.
    std::uint64_t present = 0;
    for (std::uint64_t i = 0; i < written + 4096; ++i) {
      auto got = (*store)->get(*ns, test::pattern_key(i));
      if (i < 64) REQUIRE_MESSAGE(got, "flushed blob " << i << " missing");
      if (!got) continue;
      ++present;
      CHECK(*got == test::pattern_payload(i));
    }
    CHECK(present >= 64);
    CHECK((*store)->stats().corrupt_deleted == 0);
    auto scan = (*store)->verify();
    REQUIRE(scan);
    CHECK(scan->corrupt == 0);
    CHECK(scan->blobs == present);
  }

  TEST_CASE("two processes writing and reading the same keys agree - also while a third prunes") {
    test::TempDir dir("share");
    const std::string root = (dir / "root").string();
    constexpr int kKeys = 300;
    {
      test::ChildProcess a({KILN_BLOB_STRESS, "share", root, std::to_string(kKeys), "1", "2"});
      test::ChildProcess b({KILN_BLOB_STRESS, "share", root, std::to_string(kKeys), "2", "2"});
      const std::string out_a = a.read_all(), out_b = b.read_all();
      CHECK_MESSAGE(a.wait() == 0, out_a);
      CHECK_MESSAGE(b.wait() == 0, out_b);
      CHECK(number_after(out_a, "mismatches") == 0);
      CHECK(number_after(out_b, "mismatches") == 0);
      CHECK(number_after(out_a, "corrupt") == 0);
      CHECK(number_after(out_b, "corrupt") == 0);
      // Between them they wrote each key at least once, and at most once each.
      const auto puts = number_after(out_a, "puts") + number_after(out_b, "puts");
      CHECK(puts >= kKeys);
      CHECK(puts <= 2 * kKeys);
    }
    {
      // A third process reads every key, whichever of the two wrote it.
      auto check = test::run_process({KILN_BLOB_STRESS, "check", root, std::to_string(kKeys)});
      CHECK_MESSAGE(check.exit_code == 0, check.output);
      CHECK(number_after(check.output, "hits") == kKeys);
    }
    {
      // The same with a pruner squeezing the store to a quarter of its size meanwhile.
      test::ChildProcess pruner({KILN_BLOB_STRESS, "prune", root, std::to_string(2u << 20), "1500"});
      test::ChildProcess a({KILN_BLOB_STRESS, "share", root, std::to_string(kKeys), "3", "3"});
      test::ChildProcess b({KILN_BLOB_STRESS, "share", root, std::to_string(kKeys), "4", "3"});
      const std::string out_a = a.read_all(), out_b = b.read_all(), out_p = pruner.read_all();
      CHECK_MESSAGE(a.wait() == 0, out_a);
      CHECK_MESSAGE(b.wait() == 0, out_b);
      CHECK_MESSAGE(pruner.wait() == 0, out_p);
      CHECK(number_after(out_p, "prunes") > 0);
      CHECK(number_after(out_a, "corrupt") == 0);
      CHECK(number_after(out_b, "corrupt") == 0);
    }
    auto store = BlobStore::open({.root = root});
    REQUIRE(store);
    auto scan = (*store)->verify();
    REQUIRE(scan);
    CHECK(scan->corrupt == 0);
  }
}
