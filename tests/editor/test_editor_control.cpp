// The editor as a background process (an IDE, a service, `&` in a shell): standard input is read
// only with --stdin, signals end it cleanly, and the temporary files of common editors and tools
// never become events. Through the real `kiln editor` process.
#include <doctest/doctest.h>

#include <signal.h>

#include <fstream>
#include <map>
#include <set>

#include "child_process.h"
#include "editor_process.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

struct Project : test::EditorProject {
  Project() : EditorProject("editor-control") {}
};

std::set<std::string> files_of(const std::vector<nlohmann::json>& events) {
  std::set<std::string> out;
  for (const auto& e : events) out.insert(e.value("file", ""));
  return out;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("the editor lives on when its input closes - SIGTERM and SIGINT end it cleanly") {
    for (const int signal : {SIGTERM, SIGINT}) {
      CAPTURE(signal);
      Project p;
      auto editor = p.start();
      REQUIRE(editor.next()["event"] == "ready");
      editor.process.close_input();
      // Still watching: an edit after the end of input is an event.
      std::ofstream(p.root / "scripts/gameplay_update.lua", std::ios::app) << "print(7)\n";
      const auto edited = editor.next();
      CHECK(edited["event"] == "script");
      CHECK(edited["file"] == "scripts/gameplay_update.lua");
      editor.process.kill(signal);
      const auto stopped = editor.next();
      CHECK(stopped["event"] == "stopped");
      CHECK(stopped["signal"] == (signal == SIGTERM ? "SIGTERM" : "SIGINT"));
      CHECK(editor.process.wait() == 0);
    }
  }

  TEST_CASE("with --stdin the editor takes status and quit from its input and ends at its end") {
    Project p;
    auto editor = p.start({"--stdin"});
    REQUIRE(editor.next()["event"] == "ready");
    editor.process.write_line("status");
    CHECK(editor.next()["event"] == "status");
    editor.process.close_input();
    CHECK(editor.process.wait() == 0);
  }

  TEST_CASE(
      "editor commands come with any line ending and spaces - an unknown one is answered - the last needs no newline") {
    Project p;
    auto editor = p.start({"--stdin"});
    REQUIRE(editor.next()["event"] == "ready");
    editor.process.write_line("status\r");  // CRLF
    CHECK(editor.next()["event"] == "status");
    editor.process.write_line("  status\t");
    CHECK(editor.next()["event"] == "status");
    editor.process.write_line("STATUS");
    const auto unknown = editor.next();
    CHECK(unknown["event"] == "command_error");
    CHECK(unknown["message"] == "unknown command 'STATUS' (the commands are status and quit)");
    editor.process.write_line("");  // an empty line is nothing
    editor.process.write("status");
    editor.process.close_input();
    CHECK(editor.next()["event"] == "status");
    const auto stopped = editor.next();
    CHECK(stopped["event"] == "stopped");
    CHECK(stopped["command"] == "end of input");
    CHECK(editor.process.wait() == 0);
  }

  TEST_CASE("sed -i and the safe writes of emacs and JetBrains IDEs are one change of the file and nothing else") {
    Project p;
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");
    const fs::path material = p.root / "materials/brick.json";

    // GNU sed -i writes ./sedXXXXXX beside the file and renames it over the file.
    auto sed = test::run_process({"/bin/sed", "-i", "s/0.8, 0.4/0.7, 0.4/", material.string()});
    REQUIRE_MESSAGE(sed.exit_code == 0, sed.output);
    auto events = editor.until_quiet();
    CHECK(files_of(events) == std::set<std::string>{"materials/brick.json"});

    // JetBrains safe write: name___jb_tmp___ written, the original moved to name___jb_old___, the
    // temp renamed over the original, the old copy deleted.
    const std::string text = test::slurp(material);
    const fs::path tmp = material.string() + "___jb_tmp___", old = material.string() + "___jb_old___";
    test::spit(tmp, text + "\n");
    fs::rename(material, old);
    fs::rename(tmp, material);
    fs::remove(old);
    events = editor.until_quiet();
    CHECK(files_of(events) == std::set<std::string>{"materials/brick.json"});

    // Emacs: a lock link .#name and an auto-save file #name# beside the file while it is edited.
    const fs::path autosave = p.root / "materials/#brick.json#";
    test::spit(autosave, text);
    test::spit(material, text);
    fs::remove(autosave);
    events = editor.until_quiet();
    CHECK(files_of(events) == std::set<std::string>{"materials/brick.json"});
  }

  TEST_CASE("every path the editor prints is project-relative - however the project was named") {
    Project p;
    // Named relative to the working directory, the way a shell user names it.
    const fs::path named = fs::relative(p.root, fs::current_path());
    REQUIRE(named.is_relative());
    test::EditorProcess editor(
        {KILN_CLI, "editor", named.string(), "--json", "--cache-root", (p.dir / "cache").string()});
    REQUIRE(editor.next()["event"] == "ready");
    std::ofstream(p.root / "shaders/common/lighting.glsl", std::ios::app) << "nope;\n";
    std::ofstream(p.root / "materials/bad.json") << R"({"shader": "shaders/lit", "keywords": ["FOGG"]})";
    std::ofstream(p.root / "scripts/bad.lua") << "local x = \n";
    std::map<std::string, std::string> first_error;  // event -> its first error text
    for (const auto& e : editor.until_quiet()) {
      if (e.contains("error")) first_error[e["event"]] = e["error"];
      if (e.contains("errors") && !e["errors"].empty()) first_error[e["event"]] = e["errors"][0];
    }
    REQUIRE(first_error.count("shader_error"));
    REQUIRE(first_error.count("material_error"));
    REQUIRE(first_error.count("script_error"));
    CHECK(first_error["shader_error"].rfind("shaders/common/lighting.glsl:", 0) == 0);
    CHECK(first_error["material_error"].rfind("materials/bad.json: ", 0) == 0);
    CHECK(first_error["script_error"].rfind("scripts/bad.lua:", 0) == 0);
  }
}
