#include "temp_dir.h"

#include <stdlib.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace kiln::test {
namespace {

std::mutex g_mu;
std::vector<std::filesystem::path> g_dirs;  // made by the running test case

// Removes the test's directories at its end, unless it failed.
struct TempDirListener : doctest::IReporter {
  explicit TempDirListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& st) override {
    std::lock_guard lock(g_mu);
    const bool failed = st.failure_flags != 0 || st.numAssertsFailedCurrentTest > 0;
    for (const auto& d : g_dirs) {
      if (failed) {
        std::fprintf(stderr, "kept temp dir of failed test: %s\n", d.c_str());
      } else {
        std::error_code ec;
        std::filesystem::remove_all(d, ec);
      }
    }
    g_dirs.clear();
  }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("tempdirs", 1, TempDirListener);

TempDir::TempDir(std::string_view label) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("kiln-" + std::string(label) + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
  std::lock_guard lock(g_mu);
  g_dirs.push_back(path_);
}

}  // namespace kiln::test
