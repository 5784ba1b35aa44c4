#pragma once
// The kinds of setting the config table (config.cpp) is made of: how each reads its text and
// shows its value. Private to engine/core.
//
// Thread-safety: plain values and pure functions.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/core/config.h"

namespace kiln::config_detail {

// How a setting reads its value. Text comes from env and flags; a file may also give JSON numbers
// and booleans. Returns an explanation of what was expected when the value is bad.
struct Setting {
  SettingInfo info;
  std::function<std::optional<std::string>(Config&, std::string_view text, const std::filesystem::path& base)> set;
  std::function<nlohmann::json(const Config&)> get;
  // For a list (type "paths"): `set` adds one value, `clear` empties the list.
  std::function<void(Config&)> clear = nullptr;
  bool is_list() const { return clear != nullptr; }
};

Setting path_setting(std::string name, std::filesystem::path Config::*field, std::string def, std::string help);
// A path that may be empty (the feature off).
Setting optional_path_setting(std::string name, std::filesystem::path Config::*field, std::string def,
                              std::string help);
// A list of paths (type "paths").
Setting paths_setting(std::string name, std::vector<std::filesystem::path> Config::*field, std::string def,
                      std::string help);
Setting size_setting(std::string name, std::uint64_t Config::*field, std::string def, std::string help,
                     bool allow_auto);
Setting bool_setting(std::string name, bool Config::*field, std::string def, std::string help);
// `check` (optional) answers what is wrong with a value, or nothing.
Setting text_setting(std::string name, std::string Config::*field, std::string def, std::string help,
                     std::optional<std::string> (*check)(std::string_view) = nullptr);
Setting int_setting(std::string name, int Config::*field, int lo, int hi, std::string def, std::string help);

}  // namespace kiln::config_detail
