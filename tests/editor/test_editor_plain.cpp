// `kiln editor` without --json, as a person reads it: one "<file>: <what happened>" line per event,
// counts that agree with their nouns, where the previews went, what a texture event carries and
// which materials a texture concerns.
#include <doctest/doctest.h>

#include <csignal>

#include <filesystem>
#include <string>
#include <thread>

#include "child_process.h"
#include "kiln/cache/cache_kinds.h"
#include "lavapipe.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The next line that is not a blank or a progress line.
std::string next_line(test::ChildProcess& editor) {
  auto line = editor.read_line(std::chrono::seconds(60));
  REQUIRE_MESSAGE(line, "the editor printed nothing in 60 s");
  return *line;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("the editor's plain lines name the file first - with previews - removals - and a texture's users") {
    test::TempDir dir("editor-plain");
    const fs::path root = test::copy_assets(dir);
    test::ChildProcess editor(
        {KILN_CLI, "editor", root.string(), "--previews", "--cache-root", (dir / "cache").string()},
        test::lavapipe_env());
    const std::string ready = next_line(editor);
    CHECK_MESSAGE(ready.rfind("ready: 8 materials, 18 variants (", 0) == 0, ready);
    CHECK_MESSAGE(contains(ready, " 3 scripts, 6 textures in "), ready);
    // Every material has its picture from the start, said in one line when they are all drawn, with
    // where they are: a private directory of the session's, outside the cache root (which holds
    // only the store's kinds).
    const std::string drawn = next_line(editor);
    const std::string in = "ready: 7 previews in ";
    REQUIRE_MESSAGE(drawn.rfind(in, 0) == 0, drawn);
    CHECK_MESSAGE(contains(drawn, " ms after the start)"), drawn);
    const fs::path previews = drawn.substr(in.size(), drawn.find(" (first pixels ") - in.size());
    CHECK(fs::is_directory(previews));
    CHECK((fs::status(previews).permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
    CHECK(previews.string().rfind((dir / "cache").string(), 0) == std::string::npos);

    fs::copy_file(root / "materials" / "sky.json", root / "materials" / "sky2.json");
    std::string line = next_line(editor);
    CHECK_MESSAGE(line.rfind("materials/sky2.json: 1 variant, ", 0) == 0, line);
    line = next_line(editor);  // its picture, when it is there
    CHECK_MESSAGE(
        line.rfind("materials/sky2.json: preview " + (previews / "materials/sky2.png").string() + " (pixels ", 0) == 0,
        line);
    CHECK_MESSAGE(contains(line, " ms after the change)"), line);

    // Its parameters were engine functions the scripts could call: they are compiled again without.
    fs::remove(root / "materials" / "sky2.json");
    CHECK(next_line(editor) == "materials/sky2.json: removed; 3 scripts compiled again");

    test::spit(root / "shaders" / "other.frag", "#version 450\nvoid main() {}\n");
    CHECK(next_line(editor) == "shaders/other.frag: no material uses it, nothing to rebuild");

    test::spit(root / "textures" / "white.png", test::slurp(root / "textures" / "white.png"));
    line = next_line(editor);
    CHECK_MESSAGE(line.rfind("textures/white.png: reloaded (sRGB, zip, wrap periodic,periodic), ", 0) == 0, line);
    CHECK_MESSAGE(line.ends_with(", used by materials/metal.json, materials/ui_panel.json"), line);
    line = next_line(editor);
    CHECK_MESSAGE(line.rfind("textures/white.png: 2 previews in " + previews.string() + " (first pixels ", 0) == 0,
                  line);

    test::spit(root / "textures" / "sky.png", test::slurp(root / "textures" / "sky.png").substr(0, 100));
    line = next_line(editor);
    CHECK_MESSAGE(line.rfind("textures/sky.png: ", 0) == 0, line);
    CHECK_MESSAGE(contains(line, " (used by materials/sky.json); previous version kept"), line);
    CHECK_FALSE(contains(line, "./"));

    // The session's pictures go with it; the cache root holds only the store's kinds.
    editor.kill(SIGTERM);
    CHECK(editor.wait() == 0);
    CHECK_FALSE(fs::exists(previews));
    for (const auto& entry : fs::directory_iterator(dir / "cache"))
      CHECK_MESSAGE(cache::is_cache_kind(entry.path().filename().string()), entry.path().string());
  }
}
