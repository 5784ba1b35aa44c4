#include <doctest/doctest.h>

#include <fstream>

#include "kiln/core/config.h"
#include "kiln/core/json_document.h"
#include "temp_dir.h"

using namespace kiln;

namespace {

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

ConfigInputs inputs_in(const test::TempDir& dir) {
  ConfigInputs in;
  in.default_file = dir / "kiln.json";
  in.env = {{"HOME", "/home/someone"}};
  return in;
}

}  // namespace

TEST_SUITE("core") {
  TEST_CASE("defaults are safe and the cache root follows XDG - then HOME") {
    test::TempDir dir("config");
    auto in = inputs_in(dir);
    auto c = load_config(in);
    REQUIRE(c);
    CHECK(c->config.cache_root == "/home/someone/.cache/kiln");
    CHECK(c->config.cache_disk_max_bytes == 4ull << 30);
    CHECK(c->config.cache_keep_builds == 3);
    CHECK(c->config.cache_memory_max_bytes == 512ull << 20);
    CHECK(c->config.texture_memory_max_bytes == 0);
    CHECK(c->config.shader_disk_cache);
    CHECK(c->config.jit_cache);
    CHECK(c->origin.at("cache.root") == "default");
    CHECK(c->file.empty());

    in.env["XDG_CACHE_HOME"] = "/xdg";
    CHECK(load_config(in)->config.cache_root == "/xdg/kiln");
    in.env["XDG_CACHE_HOME"] = "relative/ignored";  // the XDG spec says relative values are invalid
    CHECK(load_config(in)->config.cache_root == "/home/someone/.cache/kiln");
  }

  TEST_CASE("precedence is flag over env over file over default") {
    test::TempDir dir("config");
    write(dir / "kiln.json",
          R"({"cache": {"disk_max": "1GiB", "keep_builds": 5}, "jobs": 3, "jit": {"cache": false}})");
    auto in = inputs_in(dir);
    in.env["KILN_CACHE_DISK_MAX"] = "2GiB";
    in.env["KILN_JOBS"] = "4";
    in.flags = {{"--jobs", "6"}};
    auto c = load_config(in);
    REQUIRE(c);
    CHECK(c->file == dir / "kiln.json");
    CHECK(c->config.cache_keep_builds == 5);
    CHECK(c->origin.at("cache.keep_builds") == "file");
    CHECK(c->config.cache_disk_max_bytes == 2ull << 30);
    CHECK(c->origin.at("cache.disk_max") == "env KILN_CACHE_DISK_MAX");
    CHECK(c->config.jobs == 6);
    CHECK(c->origin.at("jobs") == "flag --jobs");
    CHECK_FALSE(c->config.jit_cache);
    CHECK(c->config.shader_disk_cache);
  }

  TEST_CASE("relative paths in the file are relative to the file") {
    test::TempDir dir("config");
    std::filesystem::create_directories(dir / "proj");
    write(dir / "proj" / "k.json", R"({"cache": {"root": "cachedir"}})");
    auto in = inputs_in(dir);
    in.file = dir / "proj" / "k.json";
    auto c = load_config(in);
    REQUIRE(c);
    CHECK(c->config.cache_root == dir / "proj" / "cachedir");
  }

  TEST_CASE("KILN_CONFIG names the file when no flag does") {
    test::TempDir dir("config");
    write(dir / "other.json", R"({"jobs": 9})");
    auto in = inputs_in(dir);
    in.env["KILN_CONFIG"] = (dir / "other.json").string();
    auto c = load_config(in);
    REQUIRE(c);
    CHECK(c->config.jobs == 9);
  }

  TEST_CASE("bad config input is an error naming the file - the place and the problem") {
    test::TempDir dir("config");
    auto in = inputs_in(dir);
    const std::string file = (dir / "kiln.json").string();

    SUBCASE("syntax error gives line and column") {
      write(dir / "kiln.json", "{\n  \"jobs\": 2,\n  \"cache\": {\"root\": }\n}\n");
      auto c = load_config(in);
      REQUIRE_FALSE(c);
      CHECK(c.error().message.rfind(file + ":3:", 0) == 0);
      CHECK(c.error().message.find("parse error") != std::string::npos);
    }
    SUBCASE("unknown setting") {
      write(dir / "kiln.json", R"({"cache": {"disk_maxx": "1GiB"}})");
      auto c = load_config(in);
      REQUIRE_FALSE(c);
      CHECK(c.error().message ==
            file + ": /cache/disk_maxx: unknown setting 'cache.disk_maxx' (did you mean 'cache.disk_max'?)");
    }
    SUBCASE("bad value") {
      write(dir / "kiln.json", R"({"cache": {"disk_max": "lots"}})");
      auto c = load_config(in);
      REQUIRE_FALSE(c);
      CHECK(c.error().message.rfind(file + ": /cache/disk_max: expected a size", 0) == 0);
      CHECK(c.error().message.find("\"lots\"") != std::string::npos);
    }
    SUBCASE("wrong type") {
      write(dir / "kiln.json", R"({"jobs": [1]})");
      auto c = load_config(in);
      REQUIRE_FALSE(c);
      CHECK(c.error().message.rfind(file + ": /jobs: expected a scalar value", 0) == 0);
    }
    SUBCASE("not an object") {
      write(dir / "kiln.json", "[]");
      REQUIRE_FALSE(load_config(in));
    }
    SUBCASE("missing explicit file") {
      in.file = dir / "absent.json";
      auto c = load_config(in);
      REQUIRE_FALSE(c);
      CHECK(c.error().message.find("absent.json: cannot open") != std::string::npos);
    }
    SUBCASE("bad environment value names the variable") {
      in.env["KILN_SHADERS_DISK_CACHE"] = "maybe";
      auto c = load_config(in);
      REQUIRE_FALSE(c);
      CHECK(c.error().message.rfind("environment KILN_SHADERS_DISK_CACHE=maybe: expected true/false", 0) == 0);
    }
    SUBCASE("bad flag value names the flag") {
      in.flags = {{"--cache-keep-builds", "0"}};
      auto c = load_config(in);
      REQUIRE_FALSE(c);
      CHECK(c.error().message.rfind("option --cache-keep-builds 0: expected a whole number from 1 to 100", 0) == 0);
    }
  }

  TEST_CASE("sizes parse in binary and decimal units and print back") {
    CHECK(parse_size("512MiB") == 512ull << 20);
    CHECK(parse_size("4GiB") == 4ull << 30);
    CHECK(parse_size("2GB") == 2'000'000'000ull);
    CHECK(parse_size("1000") == 1000ull);
    CHECK(parse_size("7B") == 7ull);
    CHECK_FALSE(parse_size("1.5GiB"));
    CHECK_FALSE(parse_size("GiB"));
    CHECK_FALSE(parse_size("5 MiB"));
    CHECK_FALSE(parse_size("99999999999999999999"));
    CHECK_FALSE(parse_size("20000000TiB"));
    CHECK(format_size(4ull << 30) == "4GiB");
    CHECK(format_size(1536) == "1536B");
  }

  TEST_CASE("every setting is documented with env and flag names derived from its name") {
    for (const auto& s : config_settings()) {
      CHECK_FALSE(s.help.empty());
      CHECK(s.env.rfind("KILN_", 0) == 0);
      CHECK(s.flag.rfind("--", 0) == 0);
    }
    CHECK(format_config(*load_config(ConfigInputs{}), false).find("cache.root") != std::string::npos);
  }

  TEST_CASE("parse_json_document reports file:line:col") {
    auto r = parse_json_document("m.json", "{\"a\": 1,\n\"b\" 2}");
    REQUIRE_FALSE(r);
    CHECK(r.error().message.rfind("m.json:2:", 0) == 0);
    CHECK(parse_json_document("m.json", "{\"a\": [1, 2]}")->at("a").size() == 2);
  }
}

TEST_SUITE("core") {
  TEST_CASE("README documents every setting with its env and flag") {
    std::ifstream in(std::filesystem::path(KILN_SOURCE_DIR) / "README.md");
    const std::string readme((std::istreambuf_iterator<char>(in)), {});
    REQUIRE_FALSE(readme.empty());
    for (const auto& s : config_settings()) {
      CHECK_MESSAGE(readme.find("`" + s.name + "`") != std::string::npos, s.name);
      CHECK_MESSAGE(readme.find("`" + s.env + "`") != std::string::npos, s.env);
      CHECK_MESSAGE(readme.find("`" + s.flag + "`") != std::string::npos, s.flag);
    }
  }
}

#include "kiln/core/text.h"

TEST_SUITE("core") {
  TEST_CASE("split_nonempty drops empty pieces") {
    CHECK(kiln::split_nonempty("a;;b;", ';') == std::vector<std::string>{"a", "b"});
    CHECK(kiln::split_nonempty("", ',').empty());
    CHECK(kiln::split_nonempty("FOG", ';') == std::vector<std::string>{"FOG"});
  }

  TEST_CASE("a name table finds each name where it stands and lists them for a message") {
    constexpr std::string_view names[] = {"spirv", "glsl", "msl"};
    CHECK(kiln::name_index(names, "spirv") == 0u);
    CHECK(kiln::name_index(names, "msl") == 2u);
    CHECK_FALSE(kiln::name_index(names, "metal"));
    CHECK_FALSE(kiln::name_index(names, ""));
    CHECK(kiln::listed_names(names) == "spirv, glsl, msl");
    CHECK(kiln::listed_names({}) == "");
  }
}

#include "kiln/core/project_paths.h"

TEST_SUITE("core") {
  TEST_CASE("messages name a project's files relative to it - wherever a path starts and nowhere else") {
    const std::vector<std::string> prefixes = {"/work/game/", "game/"};
    CHECK(kiln::relative_to_project("/work/game/materials/a.json: /params/x: bad", prefixes) ==
          "materials/a.json: /params/x: bad");
    CHECK(kiln::relative_to_project("t.png: used by /work/game/materials/a.json and (game/materials/b.json)",
                                    prefixes) == "t.png: used by materials/a.json and (materials/b.json)");
    CHECK(kiln::relative_to_project("one\n'/work/game/x'", prefixes) == "one\n'x'");
    // Not inside another path or word: /other/work/game/ is not the project.
    CHECK(kiln::relative_to_project("/other/work/game/x and endgame/y", prefixes) ==
          "/other/work/game/x and endgame/y");
    // The root's spellings: as given, absolute, each ending in '/'; "." names nothing to strip.
    const auto spelt = kiln::project_prefixes("some/project");
    REQUIRE_FALSE(spelt.empty());
    CHECK(spelt.front() == "some/project/");
    for (const auto& p : spelt) CHECK(p.back() == '/');
    for (const auto& p : kiln::project_prefixes(".")) CHECK(p != "./");
  }
}

TEST_SUITE("core") {
  TEST_CASE("a list of key files comes from a JSON array - the environment split at colons - flags that replace both") {
    test::TempDir dir("config");
    write(dir / "kiln.json",
          R"({"player": {"trusted_keys": ["keys/a.pub", "/abs/b.pub"], "require_signature": true},
              "cache": {"remote_key": "farm.key"},
              "cook": {"sign_key": "keys/release.key", "targets": [{"backend": "spirv"}], "defines": ["X"]}})");
    auto in = inputs_in(dir);
    auto c = load_config(in);
    REQUIRE_MESSAGE(c, c.error().message);
    using Paths = std::vector<std::filesystem::path>;
    // Relative to the file; the project's own cook fields are left to the project.
    CHECK(c->config.player_trusted_keys == Paths{dir / "keys/a.pub", "/abs/b.pub"});
    CHECK(c->config.player_require_signature);
    CHECK(c->config.cache_remote_keys == Paths{dir / "farm.key"});
    CHECK(c->config.cook_sign_key == dir / "keys/release.key");
    CHECK(c->origin.at("player.trusted_keys") == "file");

    in.env["KILN_PLAYER_TRUSTED_KEYS"] = "/e/one.pub:/e/two.pub";
    c = load_config(in);
    REQUIRE(c);
    CHECK(c->config.player_trusted_keys == Paths{"/e/one.pub", "/e/two.pub"});
    in.flags = {{"--player-trusted-keys", "/f/x.pub"}, {"--player-trusted-keys", "/f/y.pub"}};
    c = load_config(in);
    REQUIRE(c);
    CHECK(c->config.player_trusted_keys == Paths{"/f/x.pub", "/f/y.pub"});
    CHECK(c->origin.at("player.trusted_keys") == "flag --player-trusted-keys");
    // An empty variable would drop the file's keys without a word (a wrapper's `VAR=$UNSET`): refused.
    in.flags.clear();
    in.env["KILN_PLAYER_TRUSTED_KEYS"] = "";
    c = load_config(in);
    REQUIRE_FALSE(c);
    CHECK(c.error().message.find("KILN_PLAYER_TRUSTED_KEYS is empty") != std::string::npos);
  }

  TEST_CASE("a list of key files with a non-string entry or a misspelt cook setting is an error at its JSON pointer") {
    test::TempDir dir("config");
    auto in = inputs_in(dir);
    write(dir / "kiln.json", R"({"player": {"trusted_keys": ["a.pub", 7]}})");
    auto c = load_config(in);
    REQUIRE_FALSE(c);
    CHECK_MESSAGE(
        c.error().message.find("/player/trusted_keys/1: expected a path (a string), got 7") != std::string::npos,
        c.error().message);
    write(dir / "kiln.json", R"({"cook": {"sign_kye": "k"}})");
    c = load_config(in);
    REQUIRE_FALSE(c);
    CHECK(c.error().message.find("/cook/sign_kye: unknown setting 'cook.sign_kye'") != std::string::npos);
  }
}
