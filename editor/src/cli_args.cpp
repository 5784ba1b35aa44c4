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
    // Options without a value.
    if (arg == "--stats" || arg == "--verify" || arg == "--stdin") {
      args.switches.push_back(arg);
      continue;
    }
    // -DNAME[=VALUE] and -Idir, written together as glslangValidator takes them.
    if (arg.size() > 2 && (arg.rfind("-D", 0) == 0 || arg.rfind("-I", 0) == 0)) {
      args.options.emplace_back(arg.substr(0, 2), arg.substr(2));
      continue;
    }
    // Short options of subcommands take a value: -I dir, -D NAME, -o file.
    if (arg.size() == 2 && arg[0] == '-' && arg[1] != '-') {
      if (i + 1 >= argc) return make_error("option " + arg + " needs a value");
      args.options.emplace_back(arg, argv[++i]);
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
    if (!has_value) {
      if (i + 1 >= argc) return make_error("option " + name + " needs a value");
      value = argv[++i];
    }
    if (name == "--config")
      args.config.file = value;
    else if (known)
      args.config.flags.emplace_back(name, value);
    else
      args.options.emplace_back(name, value);  // the subcommand checks it
  }
  return args;
}

std::string Args::option(const std::string& name, const std::string& fallback) const {
  std::string value = fallback;
  for (const auto& [n, v] : options)
    if (n == name) value = v;
  return value;
}

std::vector<std::string> Args::option_values(const std::string& name) const {
  std::vector<std::string> values;
  for (const auto& [n, v] : options)
    if (n == name) values.push_back(v);
  return values;
}

Status Args::check_options(const std::vector<std::string>& allowed) const {
  for (const auto& [n, v] : options)
    if (std::find(allowed.begin(), allowed.end(), n) == allowed.end())
      return make_error("unknown option " + n + " (see kiln --help)");
  return {};
}

}  // namespace kiln::cli
