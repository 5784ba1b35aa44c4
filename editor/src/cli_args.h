#pragma once
// What a `kiln` command runs on, as command_line.h parsed it: its words (the command's path and
// operands), its options and switches, --json, and the configuration inputs (--config, the
// settings flags, the environment).

#include <string>
#include <vector>

#include "kiln/core/config.h"

namespace kiln::cli {

struct Args {
  std::vector<std::string> words;  // subcommand and its operands
  ConfigInputs config;
  bool json = false;
  std::vector<std::string> switches;  // value-less options: --stats, --verify, --stdin
  bool has(const std::string& name) const {
    for (const auto& s : switches)
      if (s == name) return true;
    return false;
  }
  // Options of the subcommand (not settings): "--pass" -> "Forward", "-I" -> "dir", in order.
  std::vector<std::pair<std::string, std::string>> options;

  // The last value of an option, or `fallback`.
  std::string option(const std::string& name, const std::string& fallback = "") const;
  std::vector<std::string> option_values(const std::string& name) const;
  // Fails naming the first option not in `allowed`.
  Status check_options(const std::vector<std::string>& allowed) const;
};

// Exit codes: 0 success, 1 the work failed, 2 usage error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

}  // namespace kiln::cli
