#include "command_line.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/cache/cache_kinds.h"
#include "kiln/core/config.h"
#include "kiln/core/text.h"

namespace kiln::cli {
namespace {

// One command or subcommand: its words, its operands, its options.
struct Operand {
  const char* name;
  const char* help;
};
struct ValueOption {
  const char* flag;  // "--pass" or "-I,--include"
  const char* help;
  bool repeatable = false;
  enum Check { kAny, kCount, kWhole } check = kAny;  // kCount: 0, 1, 2, ...; kWhole: 1, 2, 3, ...
};
struct Switch {
  const char* flag;
  const char* help;
};
struct Command {
  std::vector<const char*> path;  // {"shader", "compile"}
  const char* help;
  std::vector<Operand> operands;
  std::vector<ValueOption> options;
  std::vector<Switch> switches;
  const char* example;
};

const Switch kJson{"--json", "machine-readable output (JSON) on standard output"};

std::vector<Command> commands() {
  // The kinds from the one list the store keeps (cache_kinds.h), never spelt out here.
  static const std::string kind_help = "only this kind: " + cache::cache_kind_names();
  const std::vector<ValueOption> shader_options = {
      {"--keywords", "the variant's keywords, comma-separated: FOG,SKIN"},
      {"--pass", "the pass (default: the first the shader declares)"},
      {"-D", "a define, NAME or NAME=VALUE (also joined: -DNAME=VALUE)", true},
      {"-I", "an include directory (also joined: -Idir)", true},
      {"--root", "the root the shader is named under (default: the project above it, else its directory)"},
      {"--target-env", "vulkan1.0, vulkan1.1, vulkan1.2 or vulkan1.3 (default vulkan1.0)"},
      {"--backend", "spirv, glsl, essl, hlsl or msl (default spirv)"},
      {"-o",
       "output: a file (one per stage: lit.vert.spv, lit.frag.spv) or a directory (out/); for reflect, "
       "the JSON file"}};
  return {
      {{"info"}, "the version and the resolved configuration", {}, {}, {kJson}, "kiln info"},
      {{"version"}, "the version", {}, {}, {kJson}, "kiln version"},
      {{"config"},
       "each setting with its value and where the value came from",
       {},
       {},
       {kJson},
       "kiln config --json --cache-root /tmp/cache"},
      {{"cache", "stats"},
       "entries, bytes, hits, misses and evictions of each persistent cache",
       {},
       {{"--kind", kind_help.c_str()}},
       {kJson},
       "kiln cache stats --kind shaders"},
      {{"cache", "verify"},
       "check every cached entry, deleting the ones that fail",
       {},
       {},
       {kJson},
       "kiln cache verify"},
      {{"cache", "prune"},
       "apply the size cap and the build limit to every kind at once",
       {},
       {},
       {kJson},
       "kiln cache prune"},
      {{"cache", "clear"},
       "remove every entry that no running tool uses",
       {},
       {{"--kind", kind_help.c_str()}},
       {kJson},
       "kiln cache clear --kind textures"},
      {{"shader", "compile"},
       "one variant of every stage of a shader, through the variant cache",
       {{"shader", "a shader (shaders/lit for lit.vert + lit.frag) or one stage file"}},
       shader_options,
       {kJson},
       "kiln shader compile shaders/lit --keywords FOG --pass Forward -o out/"},
      {{"shader", "reflect"},
       "every stage's reflection: bindings, block members, inputs, outputs",
       {{"shader", "a shader (shaders/lit for lit.vert + lit.frag) or one stage file"}},
       shader_options,
       {kJson},
       "kiln shader reflect shaders/lit --json"},
      {{"probe", "variants"},
       "a self-test of the variant cache's keys and invalidation (it uses no project)",
       {},
       {},
       {},
       "kiln probe variants"},
      {{"script", "run"},
       "run a script: interpreted, hot pages compiled or loaded from the page cache",
       {{"script", "a .lua file in Kiln's subset"}},
       {{"--budget", "stop after this many instructions (0: no limit)", false, ValueOption::kCount},
        {"--jit", "on or off (default on)"},
        {"--mode", "checked or unchecked (default checked)"}},
       {{"--stats", "the page runtime's statistics on standard error"}, kJson},
       "kiln script run scripts/gameplay_update.lua --stats"},
      {{"script", "disasm"},
       "a script's bytecode, page by page",
       {{"script", "a .lua file in Kiln's subset"}},
       {},
       {},
       "kiln script disasm scripts/gameplay_update.lua"},
      {{"editor"},
       "watch a project and rebuild what each edit changes, one line per event, until SIGINT/SIGTERM",
       {{"project", "the project directory"}},
       {},
       {kJson,
        {"--stdin", "also take commands from standard input: status, quit"},
        {"--previews", "render a material's preview after each edit of it (needs a Vulkan device)"}},
       "kiln editor assets --json"},
      {{"cook"},
       "validate a project and build its variants, scripts and textures into packs",
       {{"project", "the project directory"}},
       {{"--out", "the output directory (required, except for a shard)"},
        {"--report", "also write the report (JSON) to this file"},
        {"--shard",
         "i/N: build only this machine's part (from 1) of the variants and textures into the cache "
         "(a farm sharing cache.remote); writes no packs"},
        {"--shard-count", "N, when the shard index comes from JOB_COMPLETION_INDEX", false, ValueOption::kWhole}},
       {{"--verify", "recompile what the caches served; fail on a difference"},
        {"--previews", "also render a picture of every material into <out>/previews (needs a Vulkan device)"},
        kJson},
       "kiln cook assets --out build/cooked --report build/cook-report.json"},
      {{"texture", "info"},
       "levels, tile grids, format, wrap modes and maketx metadata of a .tx",
       {{"file", "a .tx file"}},
       {},
       {kJson},
       "kiln texture info textures/brick.tx"},
      {{"texture", "export"},
       "one mip level as an RGBA PNG, read through the tile cache",
       {{"texture", "a .tx or a plain image"}, {"out", "the PNG to write"}},
       {{"--level", "the mip level (default 0, the largest)", false, ValueOption::kCount}},
       {},
       "kiln texture export textures/brick.png --level 2 brick-2.png"},
      {{"texture", "thumb"},
       "a thumbnail from the smallest level at least as wide",
       {{"texture", "a .tx or a plain image"}, {"out", "the PNG to write"}},
       {{"--size", "the thumbnail's width in pixels (default 256)", false, ValueOption::kWhole}},
       {},
       "kiln texture thumb textures/brick.png --size 64 brick-thumb.png"},
      {{"texture", "extract"},
       "the .tx a cooked set ships for a texture, as a file (for texture info, iinfo, oiiotool)",
       {{"set", "a cooked set's directory"},
        {"texture", "the texture as materials name it"},
        {"out", "the .tx to write"}},
       {{"--target", "the cook target whose copy to take (default: the set's first)"}},
       {},
       "kiln texture extract ../mygame-cooked textures/brick.png brick.tx"},
  };
}

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

  void build(CLI::App& app) {
    app.description("Kiln: builds and caches shader variants, script code and texture tiles.");
    app.set_version_flag("--version", version_line());
    app.require_subcommand(0, 1);
    app.fallthrough();
    add_settings(app);
    for (const Command& command : commands()) add(app, command);
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
      app.add_option_function<std::string>(
             flag, [this, flag](const std::string& v) { args_.config.flags.emplace_back(flag, v); },
             s.help + " [" + s.type + "; env " + s.env + "; default " + s.default_text + "]")
          ->type_name(s.type);
    }
  }

  CLI::App* parent_of(CLI::App& app, const char* name, const char* help) {
    if (auto* existing = find(app, name)) return existing;
    auto* sub = app.add_subcommand(name, help);
    // probe is a self-test of the variant cache, for Kiln's own checks: it runs, but a user's help
    // does not list it next to the commands that work on a project.
    if (std::string_view(name) == "probe") sub->group("");
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
    for (std::size_t i = 0; i + 1 < command.path.size(); ++i)
      where = parent_of(*where, command.path[i], group_help(command.path[i]));
    CLI::App* sub = where->add_subcommand(command.path.back(), command.help);
    sub->fallthrough();
    sub->footer(std::string("example: ") + command.example +
                "\nThe settings flags (--cache-root, --jobs, ...) and --config apply here too: see kiln --help.");
    sub->callback([this, path = command.path] { args_.words.insert(args_.words.begin(), path.begin(), path.end()); });
    for (const Operand& operand : command.operands) {
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

  static const char* group_help(const char* name) {
    const std::string n = name;
    if (n == "cache") return "the persistent caches: stats, verify, prune, clear";
    if (n == "shader") return "shader variants: compile, reflect";
    if (n == "probe") return "self-tests of Kiln's caches (not of a project): variants";
    if (n == "script") return "scripts: run, disasm";
    if (n == "texture") return "textures: info, export, thumb, extract";
    return "";
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
  builder.build(app);
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
