#include "cli_args.h"

#include <algorithm>

namespace kiln::cli {

Result<Args> parse_args(int argc, char** argv) {
  Args args;
  args.config.env = ConfigInputs::process_env();
  const auto settings = config_settings();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json") {
      args.json = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      args.help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      args.words.push_back(arg);
      continue;
    }
    std::string name = arg, value;
    bool has_value = false;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    const bool known = name == "--config" || std::any_of(settings.begin(), settings.end(),
                                                         [&](const SettingInfo& s) { return s.flag == name; });
    if (!known) return make_error("unknown option " + name + " (see kiln --help)");
    if (!has_value) {
      if (i + 1 >= argc) return make_error("option " + name + " needs a value");
      value = argv[++i];
    }
    if (name == "--config")
      args.config.file = value;
    else
      args.config.flags.emplace_back(name, value);
  }
  return args;
}

}  // namespace kiln::cli
