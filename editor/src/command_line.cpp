#include "command_line.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "command_table.h"
#include "kiln/core/config.h"
#include "kiln/core/text.h"

namespace kiln::cli {
namespace {

// A whole number in decimal (at least 1 when `positive`); the message says what was given.
CLI::Validator whole_number(bool positive) {
  return CLI::Validator(
      [positive](std::string& text) -> std::string {
        std::uint64_t n = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (ec == std::errc() && end == text.data() + text.size() && !text.empty() && (!positive || n > 0)) return {};
        return std::string("needs ") + (positive ? "a whole number above 0" : "a whole number") + ", got \"" + text +
               "\"";
      },
      "");
}

// The CLI11 app and where each parsed value lands in `args`.
class Builder {
 public:
  explicit Builder(Args& args) : args_(args) {}

  // Only the commands whose first word is among `words` (all of them when none is): building
  // CLI11's options for every command costs a one-line script run about a millisecond. The command
  // the user typed is always among them (its first word is in argv); a typo keeps them all, so the
  // suggestions and --help see every command.
  void build(CLI::App& app, std::span<char* const> words) {
    app.description("Kiln: builds and caches shader variants, script code and texture tiles.");
    app.set_version_flag("--version", version_line());
    app.require_subcommand(0, 1);
    app.fallthrough();
    add_settings(app);
    const auto named = [&](const Command& command) {
      for (const char* w : words)
        if (std::string_view(w) == command.path.front()) return true;
      return false;
    };
    const bool any = std::any_of(command_table().begin(), command_table().end(), named);
    for (const Command& command : command_table())
      if (!any || named(command)) add(app, command);
    app.footer(
        "Without a command: kiln info. kiln <command> --help: the command's options and an example.\n"
        "Exit codes: 0 success, 1 the work failed, 2 usage or configuration error.");
  }

 private:
  // --config and every setting's flag, on the app: accepted before or after the command.
  void add_settings(CLI::App& app) {
    app.add_option_function<std::string>(
           "--config", [this](const std::string& v) { args_.config.file = v; },
           "the project config file (default: KILN_CONFIG, else ./kiln.json if present)")
        ->type_name("PATH");
    for (const SettingInfo& s : config_settings()) {
      const std::string flag = s.flag;
      const std::string help = s.help + " [" + s.type + "; env " + s.env + "; default " + s.default_text + "]";
      if (s.type == "paths") {  // a list: each flag adds one
        app.add_option_function<std::vector<std::string>>(
               flag,
               [this, flag](const std::vector<std::string>& values) {
                 for (const auto& v : values) args_.config.flags.emplace_back(flag, v);
               },
               help)
            ->allow_extra_args(false)
            ->type_name("PATH");
        continue;
      }
      app.add_option_function<std::string>(
             flag, [this, flag](const std::string& v) { args_.config.flags.emplace_back(flag, v); }, help)
          ->type_name(s.type);
    }
  }

  CLI::App* parent_of(CLI::App& app, const char* name) {
    if (auto* existing = find(app, name)) return existing;
    const CommandGroup* group = nullptr;
    for (const CommandGroup& g : command_groups())
      if (std::string_view(g.name) == name) group = &g;
    auto* sub = app.add_subcommand(name, group ? group->help : "");
    if (group && !group->listed) sub->group("");
    sub->require_subcommand(1, 1);
    sub->fallthrough();
    return sub;
  }
  static CLI::App* find(CLI::App& app, const char* name) {
    for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
      if (sub->get_name() == name) return sub;
    return nullptr;
  }

  void add(CLI::App& app, const Command& command) {
    CLI::App* where = &app;
    for (std::size_t i = 0; i + 1 < command.path.size(); ++i) where = parent_of(*where, command.path[i]);
    CLI::App* sub = where->add_subcommand(command.path.back(), command.help);
    sub->fallthrough();
    sub->footer(std::string("example: ") + command.example +
                "\nThe settings flags (--cache-root, --jobs, ...) and --config apply here too: see kiln --help.");
    sub->callback([this, path = command.path] { args_.words.insert(args_.words.begin(), path.begin(), path.end()); });
    for (const Operand& operand : command.operands) {
      if (operand.many) {
        sub->add_option_function<std::vector<std::string>>(
               operand.name,
               [this](const std::vector<std::string>& values) {
                 args_.words.insert(args_.words.end(), values.begin(), values.end());
               },
               operand.help)
            ->required()
            ->expected(1, -1);
        continue;
      }
      sub->add_option_function<std::string>(
             operand.name, [this](const std::string& v) { args_.words.push_back(v); }, operand.help)
          ->required();
    }
    for (const ValueOption& option : command.options) {
      const std::string flag = option.flag;
      CLI::Option* added = nullptr;
      if (option.repeatable) {
        added = sub->add_option_function<std::vector<std::string>>(
            flag,
            [this, flag](const std::vector<std::string>& values) {
              for (const auto& v : values) args_.options.emplace_back(flag, v);
            },
            option.help);
        added->allow_extra_args(false);
      } else {
        added = sub->add_option_function<std::string>(
            flag, [this, flag](const std::string& v) { args_.options.emplace_back(flag, v); }, option.help);
      }
      if (option.check != ValueOption::kAny)
        added->check(whole_number(option.check == ValueOption::kWhole))->type_name("N");
    }
    for (const Switch& s : command.switches) {
      const std::string flag = s.flag;
      sub->add_flag_callback(
          flag,
          [this, flag] {
            if (flag == "--json")
              args_.json = true;
            else
              args_.switches.push_back(flag);
          },
          s.help);
    }
  }

  Args& args_;
};

}  // namespace

std::string version_line() { return std::string("kiln ") + KILN_VERSION + " (" + KILN_BUILD_TYPE + ")"; }

namespace {

// An unknown option or word, or a missing subcommand, said naming the command it was given to and
// the nearest name it knows; nothing for the other errors, which CLI11 says well.
std::optional<std::string> usage_error(CLI::App& app, const CLI::ParseError& e) {
  // By type: CLI11 names an ExtrasError after the command that threw it.
  const bool unexpected = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
  const bool required = dynamic_cast<const CLI::RequiredError*>(&e) != nullptr;
  if (!unexpected && !required) return std::nullopt;
  CLI::App* at = &app;
  std::string command = "kiln";
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands())
    at = subs.front(), command += " " + at->get_name();
  std::vector<std::string> extras = app.remaining(true);
  if (extras.empty() && unexpected) {
    // CLI11 keeps them only in its message: "The following arguments were not expected: 2 --jbos".
    const std::string what = e.what();
    if (const auto colon = what.find(": "); colon != std::string::npos)
      extras = split_nonempty(std::string_view(what).substr(colon + 2), ' ');
  }
  if (required) {
    std::vector<std::string> names;
    for (const CLI::App* sub : at->get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (names.empty()) return std::nullopt;  // a required option: CLI11's message names it
    std::string listed;
    for (const auto& n : names) listed += (listed.empty() ? "" : ", ") + n;
    const std::string given = extras.empty() ? "" : extras.front();
    return command + ": " + (given.empty() ? "which one? " : "unknown command '" + given + "'") +
           (given.empty() ? "" : did_you_mean(given, names)) + (given.empty() ? "" : "; ") + "it takes " + listed +
           " (" + command + " --help)";
  }
  std::vector<std::string> options;
  for (const CLI::App* level = at; level; level = level->get_parent())
    for (const CLI::Option* o : level->get_options()) {
      for (const auto& n : o->get_lnames()) options.push_back("--" + n);
      for (const auto& n : o->get_snames()) options.push_back("-" + n);
    }
  for (const auto& extra : extras)
    if (extra.size() > 1 && extra.front() == '-') {
      const std::string name = extra.substr(0, extra.find('='));
      return command + ": unknown option " + name + did_you_mean(name, options) + "; " + command +
             " --help lists its options";
    }
  if (extras.empty()) return std::nullopt;
  std::vector<std::string> commands;
  for (const CLI::App* sub : at->get_subcommands([](CLI::App*) { return true; }))
    if (!sub->get_group().empty()) commands.push_back(sub->get_name());
  if (!commands.empty())
    return command + ": unknown command '" + extras.front() + "'" + did_you_mean(extras.front(), commands) + " (" +
           command + " --help lists them)";
  return command + ": unexpected argument '" + extras.front() + "' (" + command + " --help)";
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, char** argv) {
  Args args;
  args.config.env = ConfigInputs::process_env();
  CLI::App app("kiln", "kiln");
  Builder builder(args);  // its callbacks run during parse(): it must live until then
  builder.build(app, std::span<char* const>(argv + 1, argc > 0 ? static_cast<std::size_t>(argc - 1) : 0));
  try {
    app.parse(argc, argv);  // short options take joined values too: -DNAME=VALUE, -Idir
  } catch (const CLI::ParseError& e) {
    if (auto said = usage_error(app, e)) {
      std::fprintf(stderr, "%s\n", said->c_str());
      return {std::nullopt, kExitUsage};
    }
    const int code = app.exit(e);  // prints the help, the version or the error
    return {std::nullopt, code == 0 ? kExitOk : kExitUsage};
  }
  // The options of a subcommand reach `args` in the order given; the words path first.
  if (args.words.empty()) args.words.push_back("info");
  return {std::move(args), kExitOk};
}

}  // namespace kiln::cli
