// The editor's project directory itself going away — deleted, renamed, re-created — and its
// command input flooded: through the real `kiln editor` process, each an event, never a session
// that silently stops seeing edits.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "child_process.h"
#include "editor_process.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

struct Project : test::EditorProject {
  Project() : EditorProject("editor-root") {}
};

// Events until one of kind `event` (that one included); fails when none comes.
std::vector<nlohmann::json> until_event(test::EditorProcess& editor, const std::string& event) {
  std::vector<nlohmann::json> seen;
  for (;;) {
    auto e = editor.poll(std::chrono::seconds(30));
    REQUIRE_MESSAGE(e, "no '" << event << "' event in 30 s");
    seen.push_back(*e);
    if ((*e)["event"] == event) return seen;
  }
}

void edit_include(const fs::path& root) { std::ofstream(root / "shaders/common/fog.glsl", std::ios::app) << "//e\n"; }

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a project directory deleted under the editor is an error - re-created it is watched again") {
    Project p;
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");
    fs::remove_all(p.root);
    const auto lost = until_event(editor, "project_error").back();
    CHECK(lost["error"].get<std::string>().find(p.root.string() + ": the project directory was removed") == 0);
    fs::create_directories(p.root);
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", p.root, fs::copy_options::recursive);
    until_event(editor, "project_restored");
    editor.until_quiet();  // the files coming back are events of their own
    edit_include(p.root);
    const auto edited = until_event(editor, "shader").back();
    CHECK(edited["invalidated"].get<int>() > 0);
  }

  TEST_CASE("a project directory replaced by a link to another copy is loaded again - its edits rebuild") {
    Project p;
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");
    const fs::path other = p.dir / "other-copy";
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", other, fs::copy_options::recursive);
    fs::remove_all(p.root);
    until_event(editor, "project_error");
    fs::create_directory_symlink(other, p.root);
    // The project as it now is: loaded whole, with no error.
    const auto ready = until_event(editor, "ready").back();
    CHECK_MESSAGE(ready["errors"].empty(), ready.dump());
    CHECK(ready["materials"] == 8);
    CHECK(ready["textures"] == 6);
    editor.until_quiet();
    edit_include(p.root);
    const auto edited = until_event(editor, "shader");
    for (const auto& e : edited) CHECK_MESSAGE(e["event"] != "texture_error", e.dump());
    CHECK(edited.back()["invalidated"].get<int>() > 0);
  }

  TEST_CASE("a project directory renamed under the editor is an error - edits in the moved tree are not its") {
    Project p;
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");
    const fs::path moved = p.dir / "moved";
    fs::rename(p.root, moved);
    const auto lost = until_event(editor, "project_error").back();
    CHECK(lost["error"].get<std::string>().find("was moved or renamed away") != std::string::npos);
    editor.until_quiet();
    edit_include(moved);
    for (const auto& e : editor.until_quiet()) CHECK_MESSAGE(e["event"] != "shader", e.dump());
    fs::rename(moved, p.root);
    until_event(editor, "project_restored");
    editor.until_quiet();
    edit_include(p.root);
    CHECK(until_event(editor, "shader").back()["invalidated"].get<int>() > 0);
  }

  TEST_CASE("a command line of many megabytes is ignored with an event - the next command is answered") {
    Project p;
    auto editor = p.start({"--stdin"});
    REQUIRE(editor.next()["event"] == "ready");
    editor.process.write_line(std::string(16 << 20, 'x'));
    editor.process.write_line("status");
    const auto error = editor.next();
    CHECK(error["event"] == "command_error");
    CHECK(error["message"] == "a line of more than 4096 bytes was ignored");
    CHECK(editor.next()["event"] == "status");
    editor.process.write_line("quit");
    const auto stopped = editor.next();
    CHECK(stopped["event"] == "stopped");
    CHECK(stopped["command"] == "quit");
    CHECK(editor.process.wait() == 0);
  }
}
