#include "setting_types.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace kiln::config_detail {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string upper_snake(std::string_view name) {
  std::string out = "KILN_";
  for (char c : name) out += (c == '.') ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string flag_of(std::string_view name) {
  std::string out = "--";
  for (char c : name) out += (c == '.' || c == '_') ? '-' : c;
  return out;
}

std::optional<long long> parse_int(std::string_view text) {
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<bool> parse_bool(std::string_view text) {
  std::string t(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "1" || t == "true" || t == "on" || t == "yes") return true;
  if (t == "0" || t == "false" || t == "off" || t == "no") return false;
  return std::nullopt;
}

}  // namespace

Setting path_setting(std::string name, fs::path Config::*field, std::string def, std::string help) {
  return {{name, upper_snake(name), flag_of(name), "path", std::move(def), std::move(help)},
          [field](Config& c, std::string_view text, const fs::path& base) -> std::optional<std::string> {
            if (text.empty()) return "expected a non-empty path";
            fs::path p(text);
            c.*field = p.is_absolute() ? p : (base / p).lexically_normal();
            return std::nullopt;
          },
          [field](const Config& c) { return json((c.*field).string()); }};
}

Setting optional_path_setting(std::string name, fs::path Config::*field, std::string def, std::string help) {
  return {{name, upper_snake(name), flag_of(name), "path", std::move(def), std::move(help)},
          [field](Config& c, std::string_view text, const fs::path& base) -> std::optional<std::string> {
            const fs::path p(text);
            c.*field = text.empty() || p.is_absolute() ? p : (base / p).lexically_normal();
            return std::nullopt;
          },
          [field](const Config& c) { return json((c.*field).string()); }};
}

Setting paths_setting(std::string name, std::vector<fs::path> Config::*field, std::string def, std::string help) {
  return {{name, upper_snake(name), flag_of(name), "paths", std::move(def), std::move(help)},
          [field](Config& c, std::string_view text, const fs::path& base) -> std::optional<std::string> {
            if (text.empty()) return "expected a non-empty path";
            fs::path p(text);
            (c.*field).push_back(p.is_absolute() ? p : (base / p).lexically_normal());
            return std::nullopt;
          },
          [field](const Config& c) {
            json list = json::array();
            for (const auto& p : c.*field) list.push_back(p.string());
            return list;
          },
          [field](Config& c) { (c.*field).clear(); }};
}

Setting size_setting(std::string name, std::uint64_t Config::*field, std::string def, std::string help,
                     bool allow_auto) {
  return {
      {name, upper_snake(name), flag_of(name), allow_auto ? "size-or-auto" : "size", std::move(def), std::move(help)},
      [field, allow_auto](Config& c, std::string_view text, const fs::path&) -> std::optional<std::string> {
        if (allow_auto && text == "auto") {
          c.*field = 0;
          return std::nullopt;
        }
        auto v = parse_size(text);
        if (!v || *v == 0)
          return std::string("expected a size like 512MiB, 4GiB or a byte count") + (allow_auto ? ", or auto" : "");
        c.*field = *v;
        return std::nullopt;
      },
      [field, allow_auto](const Config& c) {
        if (allow_auto && c.*field == 0) return json("auto");
        return json(format_size(c.*field));
      }};
}

Setting bool_setting(std::string name, bool Config::*field, std::string def, std::string help) {
  return {{name, upper_snake(name), flag_of(name), "bool", std::move(def), std::move(help)},
          [field](Config& c, std::string_view text, const fs::path&) -> std::optional<std::string> {
            auto v = parse_bool(text);
            if (!v) return "expected true/false (also on/off, yes/no, 1/0)";
            c.*field = *v;
            return std::nullopt;
          },
          [field](const Config& c) { return json(c.*field); }};
}

Setting text_setting(std::string name, std::string Config::*field, std::string def, std::string help,
                     std::optional<std::string> (*check)(std::string_view)) {
  return {{name, upper_snake(name), flag_of(name), "text", std::move(def), std::move(help)},
          [field, check](Config& c, std::string_view text, const fs::path&) -> std::optional<std::string> {
            if (check)
              if (auto problem = check(text)) return problem;
            c.*field = std::string(text);
            return std::nullopt;
          },
          [field](const Config& c) { return json(c.*field); }};
}

Setting int_setting(std::string name, int Config::*field, int lo, int hi, std::string def, std::string help) {
  return {{name, upper_snake(name), flag_of(name), "int", std::move(def), std::move(help)},
          [field, lo, hi](Config& c, std::string_view text, const fs::path&) -> std::optional<std::string> {
            auto v = parse_int(text);
            if (!v || *v < lo || *v > hi)
              return "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
            c.*field = static_cast<int>(*v);
            return std::nullopt;
          },
          [field](const Config& c) { return json(c.*field); }};
}

}  // namespace kiln::config_detail
