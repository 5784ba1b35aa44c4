#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <set>

#include <nlohmann/json.hpp>

#include "editor_process.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using test::slurp;

using test::write_by_delete_and_create;
using test::write_by_rename;
using test::write_in_place;
using Editor = test::EditorProcess;

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("kiln editor rebuilds exactly what an edit changes - keeps the last good version through a broken edit") {
    test::TempDir dir("editor");
    const fs::path project = dir / "project";
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", project, fs::copy_options::recursive);
    Editor editor(
        {KILN_CLI, "editor", project.string(), "--json", "--stdin", "--cache-root", (dir / "cache").string()});
    const auto ready = editor.next();
    REQUIRE(ready["event"] == "ready");
    CHECK(ready["materials"] == 8);
    CHECK(ready["errors"].empty());
    const std::string unlit = slurp(project / "shaders/unlit.frag");

    SUBCASE("shader edits: in place, through an include, broken, fixed, reverted") {
      // An in-place edit of one stage: only that shader's variants.
      write_in_place(project / "shaders/unlit.frag", unlit + "\n// tweak 1\n");
      auto e = editor.next();
      CHECK(e["event"] == "shader");
      CHECK(e["file"] == "shaders/unlit.frag");
      CHECK(e["shaders"] == nlohmann::json::array({"shaders/unlit"}));
      CHECK(e["invalidated"].get<int>() >= 1);
      for (const auto& v : e["variants"]) CHECK(v.get<std::string>().rfind("shaders/unlit|", 0) == 0);
      CHECK(e["recompiled"] == e["invalidated"]);

      // A broken edit (temp file renamed over): file:line, and the last good variants stay.
      write_by_rename(project / "shaders/unlit.frag", unlit + "\nvoid broken() { undefined_thing = 1; }\n");
      e = editor.next();
      CHECK(e["event"] == "shader_error");
      REQUIRE(e["errors"].size() >= 1);
      CHECK(e["errors"][0].get<std::string>().find("shaders/unlit.frag:") != std::string::npos);
      CHECK(e["errors"][0].get<std::string>().find(": error: ") != std::string::npos);
      CHECK(e["kept_last_good"].get<int>() >= 1);

      // The fix recovers: a new content, compiled.
      write_in_place(project / "shaders/unlit.frag", unlit + "\n// fixed\n");
      e = editor.next();
      CHECK(e["event"] == "shader");
      CHECK(e["recompiled"].get<int>() >= 1);

      // Reverting to a content the cache has seen is a disk hit, not a compile.
      write_by_delete_and_create(project / "shaders/unlit.frag", unlit);
      e = editor.next();
      CHECK(e["event"] == "shader");
      CHECK(e["recompiled"] == 0);
      CHECK(e["cache_hits"] == e["invalidated"]);

      // An include reaches every shader that includes it (fog.glsl: lit and unlit), nothing else.
      std::ofstream(project / "shaders/common/fog.glsl", std::ios::app) << "\n// fog tweak\n";
      e = editor.next();
      CHECK(e["event"] == "shader");
      const auto shaders = e["shaders"].get<std::set<std::string>>();
      CHECK(shaders == std::set<std::string>{"shaders/lit", "shaders/unlit"});
      for (const auto& v : e["variants"]) CHECK(v.get<std::string>().rfind("shaders/post_bloom", 0) != 0);

      // A compiler warning is in the event, project-relative, once for all the variants it concerns.
      const std::size_t line2 = unlit.find('\n') + 1;
      write_in_place(project / "shaders/unlit.frag",
                     unlit.substr(0, line2) + "#extension GL_EXT_nonexistent : warn\n" + unlit.substr(line2));
      e = editor.next();
      CHECK(e["event"] == "shader");
      CHECK(e["warnings"] == nlohmann::json::array({"shaders/unlit.frag:2: warning: '#extension' : extension not "
                                                    "supported: GL_EXT_nonexistent"}));
      write_in_place(project / "shaders/unlit.frag", unlit);
      e = editor.next();
      CHECK(e["event"] == "shader");
      CHECK_FALSE(e.contains("warnings"));
    }

    SUBCASE("a script edit recompiles only the changed pages - a broken one keeps the previous version") {
      const std::string kernel = slurp(project / "scripts/numeric_kernel.lua");
      std::string edited = kernel;
      edited.replace(edited.find("0.5 * x - 1.25"), 14, "0.5 * x - 1.5");  // inside horner(): its page only
      write_by_delete_and_create(project / "scripts/numeric_kernel.lua", edited);
      auto e = editor.next();
      CHECK(e["event"] == "script");
      CHECK(e["file"] == "scripts/numeric_kernel.lua");
      CHECK(e["changed_pages"] == 1);
      CHECK(e["compiled"] == 2);  // its page, and the chunk's, which inlines it
      CHECK(e["pages"].get<int>() >= 2);

      write_in_place(project / "scripts/numeric_kernel.lua", kernel + "\nlocal oops = 1 + true\n");
      e = editor.next();
      CHECK(e["event"] == "script_error");
      CHECK(e["error"].get<std::string>().find("scripts/numeric_kernel.lua:") != std::string::npos);
      CHECK(e["kept_previous"] == true);
    }

    SUBCASE("a texture edit drops that image's tiles only - a material edit resolves its new variants") {
      auto made = test::run_process({"/usr/bin/oiiotool", "--pattern", "constant:color=0.9,0.2,0.2", "128x128", "3",
                                     "-d", "uint8", "-o", (project / "textures/.skin.tmp.png").string()});
      REQUIRE(made.exit_code == 0);
      fs::rename(project / "textures/.skin.tmp.png", project / "textures/skin.png");
      auto e = editor.next();
      CHECK(e["event"] == "texture");
      CHECK(e["image"] == "textures/skin.png");
      CHECK(e["tiles_dropped"].get<int>() >= 1);

      write_in_place(project / "materials/metal.json",
                     R"({"shader": "shaders/lit", "keywords": ["FOG", "NORMALMAP"], "params": {}, "textures": {}})");
      e = editor.next();
      CHECK(e["event"] == "material");
      CHECK(e["variants"] == 3);
      CHECK(e["cache_hits"].get<int>() + e["recompiled"].get<int>() == 3);
      CHECK(e["cache_hits"] == 3);  // brick_foggy already uses FOG+NORMALMAP

      editor.process.write_line("status");
      e = editor.next();
      CHECK(e["event"] == "status");
      CHECK(e["variants"]["in_memory"].get<int>() >= 1);
      CHECK(e["tiles"]["open_images"].get<int>() >= 6);
    }
    editor.process.write_line("quit");
    CHECK(editor.process.wait() == 0);
  }
}
