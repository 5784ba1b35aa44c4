#include "kiln/core/config.h"
#include "kiln/core/text.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kiln/core/input_limits.h"
#include "kiln/core/json_document.h"
#include "setting_types.h"

extern char** environ;

namespace kiln {
namespace {

using nlohmann::json;
using namespace config_detail;
namespace fs = std::filesystem;

constexpr std::uint64_t kMiB = 1024ull * 1024;
constexpr std::uint64_t kGiB = 1024 * kMiB;

// The remote cache's URL: its scheme here, the rest where it is opened (engine/cache).
std::optional<std::string> check_remote_url(std::string_view text) {
  if (text.empty() || text.rfind("redis://", 0) == 0 || text.rfind("http://", 0) == 0) return std::nullopt;
  return "expected redis://host[:port][/db] or http://host[:port][/path] (or empty: no remote)";
}

std::optional<std::string> check_serve_address(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const auto colon = text.rfind(':');
  const std::string_view port = colon == std::string_view::npos ? text : text.substr(colon + 1);
  const bool digits = !port.empty() && port.size() <= 5 &&
                      std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits && std::stoul(std::string(port)) <= 65535 && colon != 0) return std::nullopt;
  return "expected [ADDR:]PORT (a port from 0 to 65535; 0 picks one), or empty: no page";
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = {
      path_setting("cache.root", &Config::cache_root, "$XDG_CACHE_HOME/kiln, else ~/.cache/kiln",
                   "directory of the persistent caches (created private to the user, 0700)"),
      size_setting("cache.disk_max", &Config::cache_disk_max_bytes, "4GiB",
                   "size cap of the persistent caches; least recently used blobs are pruned beyond it", false),
      int_setting("cache.keep_builds", &Config::cache_keep_builds, 1, 100, "3",
                  "namespaces (compiler/build identities) kept per cache kind; older ones are pruned"),
      text_setting("cache.remote", &Config::cache_remote, "(none)",
                   "a cache shared by several machines, behind the local one: redis://host[:port][/db] or "
                   "http://host[:port][/path]; shader variants and texture conversions are looked up there after a "
                   "local miss and sent there when made (compiled script code never is)",
                   &check_remote_url),
      bool_setting("cache.remote_read_only", &Config::cache_remote_read_only, "false",
                   "use the remote cache without filling it (a machine that may read the farm's results)"),
      int_setting("cache.remote_timeout", &Config::cache_remote_timeout_ms, 1, 600000, "2000",
                  "milliseconds each lookup or upload of the remote cache may take in all, connecting included; a "
                  "remote that does not finish in time is left for the rest of the run (one warning)"),
      paths_setting("cache.remote_key", &Config::cache_remote_keys, "(none)",
                    "files of 32 random bytes (mode 0600) a farm shares: every entry sent to the remote carries an "
                    "HMAC-SHA256 tag under the first, and only entries whose tag one of them verifies are used; "
                    "kiln key generate --remote FILE makes one"),
      size_setting("cache.memory_max", &Config::cache_memory_max_bytes, "512MiB",
                   "in-memory budget for the compiled shader variants of the editor and kiln shader (a cook keeps none "
                   "in memory)",
                   false),
      size_setting("textures.memory_max", &Config::texture_memory_max_bytes, "auto",
                   "texture tile cache budget; auto is 1/16 of physical memory, at least 64 MiB and at most 2 GiB",
                   true),
      bool_setting("shaders.disk_cache", &Config::shader_disk_cache, "true",
                   "kill switch of the persistent shader variant cache"),
      bool_setting("shaders.compile_workers", &Config::shader_compile_workers, "true",
                   "compile shaders in worker processes, so that a compiler crash, runaway or memory blow-up "
                   "fails one variant instead of the tool; off compiles in the tool (trusted sources only)"),
      size_setting("shaders.compile_memory_max", &Config::shader_compile_memory_max_bytes, "2GiB",
                   "address space each shader compile worker may use", false),
      int_setting("shaders.compile_timeout", &Config::shader_compile_timeout_s, 1, 86400, "120",
                  "seconds one shader compile may take before its worker is stopped"),
      bool_setting("jit.cache", &Config::jit_cache, "true",
                   "kill switch of the persistent script page code cache (KILN_JIT_CACHE=off)"),
      bool_setting("jit.cache_verify", &Config::jit_cache_verify, "false",
                   "recompile every page the code cache serves and report any difference"),
      int_setting("jit.compile_threads", &Config::jit_compile_threads, 1, 64, "1",
                  "background threads compiling hot script pages"),
      bool_setting("jit.compile_workers", &Config::jit_compile_workers, "true",
                   "a cook compiles script pages in worker processes (kiln-page-worker), so that LLVM never maps "
                   "into it and a compiler crash fails the cook with a message instead of ending it"),
      size_setting("scripts.memory_max", &Config::scripts_memory_max_bytes, "256MiB",
                   "memory one script's arrays and strings may keep live; a script that allocates without bound "
                   "stops with file:line when the collector finds it over",
                   false),
      int_setting("jobs", &Config::jobs, 0, 1024, "0", "worker threads for compiles and cooks; 0 = one per core"),
      text_setting("render.device", &Config::render_device, "(none: the best device)",
                   "the Vulkan device to render with: part of its name, case-insensitive (\"llvmpipe\" for "
                   "Mesa's software renderer); empty takes a discrete GPU, else an integrated one, else any"),
      bool_setting("render.pipeline_cache", &Config::render_pipeline_cache, "true",
                   "kill switch of the persistent Vulkan pipeline cache"),
      bool_setting("render.validate", &Config::render_validate, "false",
                   "render with the Vulkan validation layer (VK_LAYER_KHRONOS_validation); any message it "
                   "prints fails the render (the player's run, the cook's or the editor's previews)"),
      bool_setting("render.decode_textures", &Config::render_decode_textures, "false",
                   "decode block-compressed textures the device cannot sample (ASTC on a desktop GPU, BC on a "
                   "phone) to RGBA8 on the CPU, saying so in one line; off refuses such a set naming the format"),
      optional_path_setting("cook.sign_key", &Config::cook_sign_key, "(none: unsigned)",
                            "the Ed25519 private key (kiln key generate, mode 0600) the cook signs the set's "
                            "manifest with, as --sign does; shards need none"),
      paths_setting("player.trusted_keys", &Config::player_trusted_keys, "(none)",
                    "public keys (.pub) a cooked set must be signed by to play, as --trust does; several for "
                    "rotation; none: sets are not checked for a signature"),
      bool_setting("player.require_signature", &Config::player_require_signature, "false",
                   "refuse every set that is not signed by a key of player.trusted_keys, even when that list is "
                   "empty (a configuration that lost its keys plays nothing instead of anything)"),
      text_setting("editor.serve", &Config::editor_serve, "(none: no page)",
                   "serve kiln editor's live page at [ADDR:]PORT (ADDR 127.0.0.1 unless given, port 0 picks one), "
                   "as --serve does",
                   &check_serve_address),
      bool_setting("editor.serve_read_only", &Config::editor_serve_read_only, "false",
                   "kiln editor's page shows the project but may not change material files (as --serve-read-only)"),
  };
  return table;
}

Config defaults(const std::map<std::string, std::string>& env) {
  Config c;
  auto xdg = env.find("XDG_CACHE_HOME");
  auto home = env.find("HOME");
  if (xdg != env.end() && fs::path(xdg->second).is_absolute())
    c.cache_root = fs::path(xdg->second) / "kiln";
  else if (home != env.end() && !home->second.empty())
    c.cache_root = fs::path(home->second) / ".cache" / "kiln";
  else  // no home at all (a service account): a per-user directory that BlobStore checks is ours
    c.cache_root = fs::path("/tmp") / ("kiln-cache-" + std::to_string(::getuid()));
  c.cache_disk_max_bytes = 4 * kGiB;
  c.cache_keep_builds = 3;
  c.cache_remote.clear();
  c.cache_remote_read_only = false;
  c.cache_remote_timeout_ms = 2000;
  c.cache_remote_keys.clear();
  c.cook_sign_key.clear();
  c.player_trusted_keys.clear();
  c.player_require_signature = false;
  c.cache_memory_max_bytes = 512 * kMiB;
  c.texture_memory_max_bytes = 0;
  c.shader_disk_cache = true;
  c.shader_compile_workers = true;
  c.shader_compile_memory_max_bytes = 2 * kGiB;
  c.shader_compile_timeout_s = 120;
  c.jit_cache = true;
  c.jit_cache_verify = false;
  c.jit_compile_threads = 1;
  c.jit_compile_workers = true;
  c.scripts_memory_max_bytes = 256 * kMiB;
  c.jobs = 0;
  c.render_device.clear();
  c.render_pipeline_cache = true;
  c.render_validate = false;
  c.render_decode_textures = false;
  c.editor_serve.clear();
  c.editor_serve_read_only = false;
  return c;
}

// The text a JSON scalar stands for, so that files, env and flags share one parser per type.
std::optional<std::string> scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();  // a float reaches the setting's parser and its message
  return std::nullopt;
}

Status apply_file(const fs::path& file, Config& config, std::map<std::string, std::string>& origin) {
  auto text = read_input_file(file, limits::kJsonFileBytes, "config file");
  if (!text) return text.error();
  auto parsed = parse_json_document(file.string(), *text);
  if (!parsed) return parsed.error();
  const json& root = *parsed;
  if (!root.is_object()) return make_error(file.string() + ": /: expected a JSON object");

  std::error_code ec;
  const fs::path base = fs::absolute(file, ec).parent_path();
  if (ec) return make_error(file.string() + ": cannot resolve the config file's directory: " + ec.message());
  // Walk every leaf so that a typo is an error, not a silently ignored setting.
  std::function<Status(const json&, const std::string&, const std::string&)> walk =
      [&](const json& node, const std::string& dotted, const std::string& pointer) -> Status {
    for (auto it = node.begin(); it != node.end(); ++it) {
      // A project's cook section is `kiln cook`'s (project_settings.h), but for the settings that
      // live there (cook.sign_key).
      if (dotted == "cook" && (it.key() == "targets" || it.key() == "include_dirs" || it.key() == "defines")) continue;
      if (dotted.empty() && it.key() == "cook" && !it->is_object()) continue;  // the project settings say so
      const std::string name = dotted.empty() ? it.key() : dotted + "." + it.key();
      const std::string ptr = pointer + "/" + json_pointer_token(it.key());
      if (it->is_object()) {
        KILN_TRY(walk(*it, name, ptr));
        continue;
      }
      const auto& table = settings();
      auto setting = std::find_if(table.begin(), table.end(), [&](const Setting& s) { return s.info.name == name; });
      if (setting == table.end()) {
        std::vector<std::string> names;
        for (const Setting& s : table) names.push_back(s.info.name);
        return make_error(file.string() + ": " + ptr + ": unknown setting '" + name + "'" + did_you_mean(name, names));
      }
      if (setting->is_list()) {
        setting->clear(config);
        const json items = it->is_array() ? *it : json::array({*it});
        for (std::size_t i = 0; i < items.size(); ++i) {
          const auto item =
              items[i].is_string() ? std::optional<std::string>(items[i].get<std::string>()) : std::nullopt;
          const std::string at = it->is_array() ? ptr + "/" + std::to_string(i) : ptr;
          std::optional<std::string> problem =
              item ? setting->set(config, *item, base) : std::optional<std::string>("expected a path (a string)");
          if (problem) return make_error(file.string() + ": " + at + ": " + *problem + ", got " + items[i].dump());
        }
        origin[name] = "file";
        continue;
      }
      auto value_text = scalar_text(*it);
      std::optional<std::string> problem =
          value_text ? setting->set(config, *value_text, base) : std::optional<std::string>("expected a scalar value");
      if (problem)
        return make_error(file.string() + ": " + ptr + ": " + *problem + ", got " + without_credentials(it->dump()));
      origin[name] = "file";
    }
    return {};
  };
  return walk(root, "", "");
}

}  // namespace

std::span<const SettingInfo> config_settings() {
  static const std::vector<SettingInfo> infos = [] {
    std::vector<SettingInfo> v;
    for (const auto& s : settings()) v.push_back(s.info);
    return v;
  }();
  return infos;
}

std::map<std::string, std::string> ConfigInputs::process_env() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key(kv.substr(0, eq));
    if (key.rfind("KILN_", 0) == 0 || key == "HOME" || key == "XDG_CACHE_HOME")
      env[key] = std::string(kv.substr(eq + 1));
  }
  return env;
}

Result<LoadedConfig> load_config(const ConfigInputs& inputs) {
  LoadedConfig loaded;
  loaded.config = defaults(inputs.env);
  for (const auto& s : settings()) loaded.origin[s.info.name] = "default";

  std::optional<fs::path> file = inputs.file;
  if (!file) {
    if (auto it = inputs.env.find("KILN_CONFIG"); it != inputs.env.end() && !it->second.empty())
      file = it->second;
    else if (std::error_code ec; fs::is_regular_file(inputs.default_file, ec))
      file = inputs.default_file;
  }
  if (file) {
    KILN_TRY(apply_file(*file, loaded.config, loaded.origin));
    loaded.file = *file;
  }

  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return make_error("cannot read the current directory: " + ec.message());
  for (const auto& s : settings()) {
    auto it = inputs.env.find(s.info.env);
    if (it == inputs.env.end()) continue;
    if (s.is_list()) {  // paths separated by ':', as PATH
      // An empty value would silently drop the keys a file lists (a wrapper's `VAR=$UNSET`): refused.
      if (split_nonempty(it->second, ':').empty())
        return make_error("environment " + s.info.env + " is empty: give paths separated by ':', or unset it");
      s.clear(loaded.config);
      for (const std::string& item : split_nonempty(it->second, ':'))
        if (auto problem = s.set(loaded.config, item, cwd))
          return make_error("environment " + s.info.env + "=" + it->second + ": " + *problem);
      loaded.origin[s.info.name] = "env " + s.info.env;
      continue;
    }
    if (auto problem = s.set(loaded.config, it->second, cwd))
      return make_error("environment " + s.info.env + "=" + without_credentials(it->second) + ": " + *problem);
    loaded.origin[s.info.name] = "env " + s.info.env;
  }

  const auto& table = settings();
  for (const auto& [flag, value] : inputs.flags) {
    const std::string& wanted = flag;  // structured bindings are not capturable by clang 14
    auto s = std::find_if(table.begin(), table.end(), [&wanted](const Setting& x) { return x.info.flag == wanted; });
    if (s == table.end()) return make_error("unknown option " + flag);
    // A list's flags replace what the file and the environment said; each adds one path.
    if (s->is_list() && loaded.origin[s->info.name].rfind("flag", 0) != 0) s->clear(loaded.config);
    if (auto problem = s->set(loaded.config, value, cwd))
      return make_error("option " + flag + " " + without_credentials(value) + ": " + *problem);
    loaded.origin[s->info.name] = "flag " + flag;
  }
  return loaded;
}

// A setting's value as printed: a URL's credentials (cache.remote) are never shown.
static json shown(const json& value) {
  return value.is_string() ? json(without_credentials(value.get<std::string>())) : value;
}

std::string format_config(const LoadedConfig& loaded, bool as_json) {
  if (as_json) {
    json out = json::object();
    out["file"] = loaded.file.empty() ? json(nullptr) : json(loaded.file.string());
    for (const auto& s : settings())
      out["settings"][s.info.name] = {{"value", shown(s.get(loaded.config))},
                                      {"origin", loaded.origin.at(s.info.name)}};
    return out.dump(2) + "\n";
  }
  std::string text = "config file: " + (loaded.file.empty() ? std::string("(none)") : loaded.file.string()) + "\n";
  std::size_t width = 0;
  for (const auto& s : settings()) width = std::max(width, s.info.name.size());
  for (const auto& s : settings()) {
    json v = shown(s.get(loaded.config));
    std::string value = v.is_string() ? v.get<std::string>() : v.dump();
    text += s.info.name + std::string(width - s.info.name.size(), ' ') + " = " + value + "  (" +
            loaded.origin.at(s.info.name) + ")\n";
  }
  return text;
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) return std::nullopt;
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, n);
  if (ec != std::errc{} || end != text.data() + digits) return std::nullopt;
  static const std::pair<std::string_view, std::uint64_t> units[] = {{"", 1},
                                                                     {"B", 1},
                                                                     {"KiB", 1ull << 10},
                                                                     {"MiB", 1ull << 20},
                                                                     {"GiB", 1ull << 30},
                                                                     {"TiB", 1ull << 40},
                                                                     {"KB", 1000ull},
                                                                     {"MB", 1000ull * 1000},
                                                                     {"GB", 1000ull * 1000 * 1000},
                                                                     {"TB", 1000ull * 1000 * 1000 * 1000}};
  const std::string_view unit = text.substr(digits);
  for (const auto& [name, scale] : units) {
    if (unit != name) continue;
    if (n > std::numeric_limits<std::uint64_t>::max() / scale) return std::nullopt;
    return n * scale;
  }
  return std::nullopt;
}

std::string format_size(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  std::uint64_t v = bytes;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return std::to_string(v) + units[u];
}

}  // namespace kiln
