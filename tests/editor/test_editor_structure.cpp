// The editor under structure changes and hostile trees: directories deleted, renamed or moved out
// while it runs, symbolic link loops, a lost inotify queue, broken textures. Each case runs the
// real `kiln editor` process.
#include <doctest/doctest.h>

#include <signal.h>

#include <fstream>
#include <set>

#include "child_process.h"
#include "editor_process.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

struct Project {
  test::TempDir dir{"editor-structure"};
  fs::path root = dir / "project";
  Project() { fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", root, fs::copy_options::recursive); }
  test::EditorProcess start() {
    return test::EditorProcess(
        {KILN_CLI, "editor", root.string(), "--json", "--stdin", "--cache-root", (dir / "cache").string()});
  }
};

// The editor still answers: `status` gets its event.
void check_alive(test::EditorProcess& editor) {
  editor.process.write_line("status");
  auto e = editor.next();
  CHECK(e["event"] == "status");
}

std::set<std::string> files_of(const std::vector<nlohmann::json>& events, const std::string& kind) {
  std::set<std::string> out;
  for (const auto& e : events)
    if (e["event"] == kind) out.insert(e["file"].get<std::string>());
  return out;
}

std::string joined_errors(const std::vector<nlohmann::json>& events) {
  std::string out;
  for (const auto& e : events)
    for (const auto& err : e.value("errors", nlohmann::json::array())) out += err.get<std::string>() + "\n";
  return out;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE(
      "deleting a directory of many files under a running editor reports the lost stages and the editor lives on") {
    Project p;
    for (const char* d : {"a", "b", "c", "d", "e", "f", "g", "h"}) {
      const fs::path deep = p.root / "shaders/common" / d / "x/y";
      fs::create_directories(deep);
      for (int n = 1; n <= 150; ++n) std::ofstream(deep / ("f" + std::to_string(n) + ".glsl")) << "// " << n << "\n";
    }
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");
    fs::remove_all(p.root / "shaders");
    const auto events = editor.until_quiet();
    // Each stage file of a shader in use is an error naming it; the 1200 unread files are not events.
    const auto errors = files_of(events, "shader_error");
    for (const char* stage : {"shaders/lit.vert", "shaders/lit.frag", "shaders/unlit.vert", "shaders/unlit.frag",
                              "shaders/post_bloom.comp"})
      CHECK_MESSAGE(errors.count(stage), std::string(stage));
    CHECK(joined_errors(events).find("shaders/lit.frag: removed, but it is a stage of shaders/lit") !=
          std::string::npos);
    CHECK(events.size() < 50);
    check_alive(editor);
    editor.process.write_line("quit");
    CHECK(editor.process.wait() == 0);
  }

  TEST_CASE(
      "a renamed stage is an error until it is back - a renamed include directory breaks and restores its shaders") {
    Project p;
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");

    fs::rename(p.root / "shaders/lit.frag", p.root / "shaders/lit_old.frag");
    auto events = editor.until_quiet();
    CHECK(files_of(events, "shader_error") == std::set<std::string>{"shaders/lit.frag"});
    CHECK(joined_errors(events).find("materials/") != std::string::npos);  // names the materials that use it
    fs::rename(p.root / "shaders/lit_old.frag", p.root / "shaders/lit.frag");
    events = editor.until_quiet();
    CHECK(files_of(events, "shader").count("shaders/lit.frag"));
    CHECK(files_of(events, "shader_error").empty());

    // The includes vanish from where the shaders look: every shader reading them fails, by name.
    fs::rename(p.root / "shaders/common", p.root / "shaders/common_moved");
    events = editor.until_quiet();
    const auto broken = files_of(events, "shader_error");
    CHECK(broken.count("shaders/common/camera.glsl"));
    CHECK(joined_errors(events).find("common/camera.glsl") != std::string::npos);
    fs::rename(p.root / "shaders/common_moved", p.root / "shaders/common");
    events = editor.until_quiet();
    CHECK(files_of(events, "shader").count("shaders/common/camera.glsl"));
    CHECK(files_of(events, "shader_error").empty());
    check_alive(editor);
  }

  TEST_CASE("scripts moved out of the project are removed - later edits there are not the project's") {
    Project p;
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");
    fs::rename(p.root / "scripts", p.dir / "scripts_outside");
    auto events = editor.until_quiet();
    CHECK(files_of(events, "script_removed") == std::set<std::string>{"scripts/gameplay_update.lua",
                                                                      "scripts/material_anim.lua",
                                                                      "scripts/numeric_kernel.lua"});
    std::ofstream(p.dir / "scripts_outside/numeric_kernel.lua", std::ios::app) << "\n-- edited outside\n";
    events = editor.until_quiet();
    CHECK(events.empty());
    // Moved back in: the scripts are the project's again.
    fs::rename(p.dir / "scripts_outside", p.root / "scripts");
    events = editor.until_quiet();
    CHECK(files_of(events, "script").size() == 3);
  }

  TEST_CASE("symbolic link loops in the project do not hang the editor - paths stay the project's") {
    Project p;
    fs::create_directory_symlink("..", p.root / "shaders/up1");
    fs::create_directory_symlink("..", p.root / "shaders/up2");
    fs::create_directory_symlink(".", p.root / "shaders/self");
    auto editor = p.start();
    const auto ready = editor.next();
    REQUIRE(ready["event"] == "ready");
    CHECK(ready["materials"] == 8);
    std::ofstream(p.root / "shaders/unlit.frag", std::ios::app) << "\n// tweak\n";
    const auto events = editor.until_quiet();
    REQUIRE(events.size() == 1);
    CHECK(events[0]["event"] == "shader");
    CHECK(events[0]["file"] == "shaders/unlit.frag");
  }

  TEST_CASE("edits lost to an inotify queue overflow are found by a rescan") {
    Project p;
    fs::create_directory(p.root / "scratch");  // watched from the start: its files raise events
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");
    int queue_limit = 16384;
    std::ifstream("/proc/sys/fs/inotify/max_queued_events") >> queue_limit;
    // A stopped editor cannot read: the burst overflows the kernel's queue, the edit's event is lost.
    editor.process.kill(SIGSTOP);
    for (int n = 0; n < queue_limit + 2000; ++n) std::ofstream(p.root / "scratch" / ("f" + std::to_string(n)));
    test::write_in_place(
        p.root / "materials/metal.json",
        R"({"shader": "shaders/lit", "keywords": ["FOG", "NORMALMAP"], "params": {}, "textures": {}})");
    editor.process.kill(SIGCONT);
    const auto events = editor.until_quiet(std::chrono::milliseconds(5000));
    CHECK(files_of(events, "material").count("materials/metal.json"));
    check_alive(editor);
  }

  TEST_CASE("a broken texture is an error naming it - the previous image stays and the fix is picked up") {
    Project p;
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");
    const fs::path brick = p.root / "textures/brick.png";
    const fs::path good = p.dir / "brick.png";
    fs::copy_file(brick, good);
    test::write_in_place(brick, std::string(2000, '\x5a'));
    auto e = editor.next();
    CHECK(e["event"] == "texture_error");
    CHECK(e["image"] == "textures/brick.png");
    CHECK(e["error"].get<std::string>().find("brick.png") != std::string::npos);
    CHECK(e["kept_previous"] == true);
    fs::copy_file(good, brick, fs::copy_options::overwrite_existing);
    e = editor.next();
    CHECK(e["event"] == "texture");
    CHECK(e["image"] == "textures/brick.png");
    editor.process.write_line("status");
    e = editor.next();
    CHECK(e["tiles"]["open_images"].get<int>() >= 6);
  }

  TEST_CASE("a texture's sidecar edit reconverts it with the new settings - a JPEG source is watched as well") {
    Project p;
    auto editor = p.start();
    REQUIRE(editor.next()["event"] == "ready");
    // The sidecar next to a texture the materials use: its image is converted again.
    test::write_in_place(p.root / "textures/brick.png.json", R"({"wrap": "clamp", "compression": "none"})");
    auto e = editor.next();
    CHECK(e["event"] == "texture");
    CHECK(e["file"] == "textures/brick.png.json");
    CHECK(e["image"] == "textures/brick.png");
    CHECK(e["wrap"] == "clamp,clamp");
    CHECK(e["compression"] == "none");
    // A broken sidecar is an error naming it; the previous image stays.
    test::write_in_place(p.root / "textures/brick.png.json", R"({"wrap": "sideways"})");
    e = editor.next();
    CHECK(e["event"] == "texture_error");
    CHECK(e["error"].get<std::string>().find("brick.png.json: /wrap: expected") != std::string::npos);
    CHECK(e["kept_previous"] == true);

    // A source format OpenImageIO reads: a material starts using a JPEG, then the JPEG changes.
    auto made = test::run_process({"/usr/bin/oiiotool", "--pattern", "constant:color=0.2,0.4,0.6", "32x32", "3", "-d",
                                   "uint8", "-o", (p.dir / "photo.jpg").string()});
    REQUIRE_MESSAGE(made.exit_code == 0, made.output);
    fs::copy_file(p.dir / "photo.jpg", p.root / "textures/photo.jpg");
    test::write_in_place(p.root / "materials/photo.json",
                         R"({"shader": "shaders/unlit", "keywords": [], "params": {}, )"
                         R"("textures": {"main_texture": "textures/photo.jpg"}})");
    const auto events = editor.until_quiet(std::chrono::milliseconds(3000));
    CHECK(files_of(events, "material").count("materials/photo.json"));
    made = test::run_process({"/usr/bin/oiiotool", "--pattern", "constant:color=0.9,0.1,0.1", "32x32", "3", "-d",
                              "uint8", "-o", (p.dir / "photo2.jpg").string()});
    REQUIRE_MESSAGE(made.exit_code == 0, made.output);
    fs::copy_file(p.dir / "photo2.jpg", p.root / "textures/.photo.tmp");
    fs::rename(p.root / "textures/.photo.tmp", p.root / "textures/photo.jpg");
    e = editor.next();
    CHECK(e["event"] == "texture");
    CHECK(e["image"] == "textures/photo.jpg");
    CHECK(e["tiles_dropped"].get<int>() >= 1);
  }
}
