// Inputs that are not what they seem, through the real `kiln` and `kiln-player`: a FIFO, a
// directory or a dangling link where a file belongs, a file that shrinks while it is read, a
// truncated plugin, a pack whose entries carry valid checksums but lie. Each is an error naming
// the file and the problem — never skipped, never waited on, never a signal.

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/runtime/manifest.h"
#include "kiln/runtime/pack.h"
#include "kiln/runtime/pack_contents.h"
#include "kiln/runtime/variant_record.h"
#include "lavapipe.h"
#include "set_rewrite.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

test::RunResult cook(const fs::path& project, const fs::path& out, const fs::path& cache) {
  return test::run_process({KILN_CLI, "cook", project.string(), "--out", out.string(), "--cache-root", cache.string()});
}

test::RunResult play(const fs::path& set, const fs::path& cache, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {KILN_PLAYER, set.string(), "--cache-root", cache.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return test::run_process(argv, test::lavapipe_env());
}

// Runs `argv` and truncates `file` to `size` bytes `delay_ms` after it started: whatever the moment,
// an answer (0) or an error naming the file (1), never a signal.
void check_truncated_while_running(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                                   const fs::path& file, std::uintmax_t size, int delay_ms) {
  test::ChildProcess child(argv, env);
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  REQUIRE(::truncate(file.c_str(), off_t(size)) == 0);
  const std::string output = child.read_all();
  const int code = child.wait();
  CHECK_MESSAGE((code == 0 || code == 1), code << " " << output);
  if (code == 1) CHECK_MESSAGE(contains(output, file.filename().string()), output);
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE(
      "a material - script - shader stage or include that is a FIFO - a directory or a dangling link is an error "
      "naming "
      "it") {
    test::TempDir dir("hostile");
    struct Case {
      std::string file, kind;
    };
    for (const Case& c : {Case{"materials/sky.json", "fifo"}, Case{"materials/sky.json", "directory"},
                          Case{"materials/sky.json", "dangling"}, Case{"scripts/zz.lua", "fifo"},
                          Case{"scripts/zz.lua", "directory"}, Case{"shaders/unlit.frag", "fifo"},
                          Case{"shaders/common/fog.glsl", "fifo"}, Case{"shaders/common/fog.glsl", "directory"}}) {
      CAPTURE(c.file);
      CAPTURE(c.kind);
      const fs::path project = test::copy_assets(dir, "p-" + c.kind + "-" + fs::path(c.file).stem().string());
      const fs::path file = project / c.file;
      fs::remove(file);
      if (c.kind == "fifo") REQUIRE(::mkfifo(file.c_str(), 0644) == 0);
      if (c.kind == "directory") fs::create_directories(file / "inside");
      if (c.kind == "dangling") fs::create_symlink(project / "nowhere.json", file);
      const auto r = cook(project, dir / ("out-" + c.kind), dir / "cache");
      CHECK_MESSAGE(r.exit_code == 1, r.output);
      CHECK_MESSAGE(contains(r.output, c.file), r.output);
      if (c.kind != "dangling")
        CHECK_MESSAGE(contains(r.output, "not a regular file"), r.output);
      else
        CHECK_MESSAGE(contains(r.output, "No such file"), r.output);
      CHECK_FALSE(fs::exists(dir / ("out-" + c.kind) / runtime::kManifestFile));
    }
  }

  TEST_CASE(
      "a source directory that is a FIFO - a file or a link to nothing is an error naming it - not an empty one") {
    test::TempDir dir("hostile");
    // Each directory once and each kind of impostor once.
    for (const auto& [sub_name, kind_name] : std::vector<std::pair<std::string, std::string>>{
             {"scripts", "fifo"}, {"textures", "file"}, {"shaders", "dangling"}, {"materials", "device"}}) {
      const std::string sub = sub_name, kind = kind_name;  // CAPTURE cannot name a binding in clang 14
      CAPTURE(sub);
      CAPTURE(kind);
      const fs::path project = test::copy_assets(dir, "d-" + sub + "-" + kind);
      const fs::path at = project / sub;
      fs::remove_all(at);
      if (kind == "fifo") REQUIRE(::mkfifo(at.c_str(), 0644) == 0);
      if (kind == "file") test::spit(at, "not a directory\n");
      if (kind == "dangling") fs::create_symlink(project / "nowhere", at);
      if (kind == "device") fs::create_symlink("/dev/zero", at);
      const fs::path out = dir / ("out-" + sub + "-" + kind);
      const auto r = cook(project, out, dir / "cache");
      CHECK_MESSAGE(r.exit_code == 1, r.output);
      // Named relative to the project, as every path inside it is.
      CHECK_MESSAGE(contains("\n" + r.output, "\n" + sub + ": not a directory"), r.output);
      CHECK_FALSE(fs::exists(out / runtime::kManifestFile));
    }
  }

  TEST_CASE("kiln texture on a FIFO or a device is refused by name - never waited on") {
    test::TempDir dir("hostile");
    const fs::path fifo = dir / "f.tx";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    const std::vector<std::vector<std::string>> commands = {
        {"texture", "info", fifo.string()},
        {"texture", "export", fifo.string(), "--level", "0", (dir / "x.png").string()},
        {"texture", "thumb", "/dev/zero", "--size", "8", (dir / "t.png").string()},
        {"texture", "thumb", (dir / "f.tx").string(), "--size", "8", (dir / "t.png").string()}};
    for (auto args : commands) {
      CAPTURE(args[1]);
      CAPTURE(args[2]);
      args.insert(args.begin(), KILN_CLI);
      // With nothing writing to the FIFO a reader that opens it waits for ever: the guard is the
      // check before the open, and the test's own timeout the symptom of its absence.
      test::ChildProcess child(args);
      const std::string output = child.read_all();
      CHECK_MESSAGE(child.wait() == 1, output);
      CHECK_MESSAGE(contains(output, "not a regular file"), output);
    }
  }

  TEST_CASE("a script compiler plugin that is a FIFO or truncated is refused - scripts run interpreted") {
    test::TempDir dir("hostile");
    const fs::path tools = fs::path(KILN_CLI).parent_path();
    for (const std::string kind : {"fifo", "truncated", "writable by all"}) {
      CAPTURE(kind);
      const fs::path bin = dir / ("bin-" + kind);
      fs::create_directories(bin);
      fs::copy_file(KILN_CLI, bin / "kiln");
      const fs::path plugin = bin / "kiln-jitc.so";
      if (kind == "fifo") {
        REQUIRE(::mkfifo(plugin.c_str(), 0644) == 0);
      } else {
        const std::string whole = test::slurp(tools / "kiln-jitc.so");
        REQUIRE(whole.size() > 200000);
        test::spit(plugin, kind == "truncated" ? whole.substr(0, 100000) : whole);
        if (kind != "truncated") fs::permissions(plugin, fs::perms::others_write, fs::perm_options::add);
      }
      const fs::path script = dir / "loop.lua";
      std::ofstream(script) << "local s = 0\nfor i = 1, 20000 do s = s + i end\nprint(s)\n";
      test::ChildProcess child({(bin / "kiln").string(), "script", "run", script.string(), "--cache-root",
                                (dir / ("cache-" + kind)).string(), "--jit", "on"});
      const std::string output = child.read_all();
      const int code = child.wait();
      CHECK_MESSAGE(code == 0, output);  // interpreted: the answer is the same
      CHECK_MESSAGE(contains(output, "200010000"), output);
      CHECK_MESSAGE(contains(output, plugin.string()), output);
      CHECK_MESSAGE(contains(output, "scripts run interpreted"), output);
    }
  }

  TEST_CASE("a .tx truncated after it was opened is a read error naming it - not SIGBUS") {
    test::TempDir dir("hostile");
    const fs::path tx = dir / "raw.tx";
    // Raw (uncompressed) tiles are what was read out of a mapping.
    auto made = test::run_process(
        {"/usr/bin/oiiotool", "--pattern", "noise", "1024x1024", "4", "-d", "uint8", "-o", (dir / "n.tif").string()});
    REQUIRE_MESSAGE(made.exit_code == 0, made.output);
    made = test::run_process({"/usr/bin/maketx", "--compression", "none", "--tile", "64", "64", "-o", tx.string(),
                              (dir / "n.tif").string()});
    REQUIRE_MESSAGE(made.exit_code == 0, made.output);
    // Truncated while a reader runs, at several moments: whatever the moment, an answer or an
    // error, never a signal.
    for (const int delay_ms : {0, 20, 60, 150}) {
      CAPTURE(delay_ms);
      const fs::path copy = dir / ("t" + std::to_string(delay_ms) + ".tx");
      fs::copy_file(tx, copy);
      check_truncated_while_running({KILN_CLI, "texture", "thumb", copy.string(), "--size", "1024",
                                     (dir / ("o" + std::to_string(delay_ms) + ".png")).string()},
                                    {}, copy, 100000, delay_ms);
    }
  }

  TEST_CASE("a pack truncated while the player runs never ends it with a signal") {
    test::TempDir dir("hostile");
    REQUIRE(cook(fs::path(KILN_SOURCE_DIR) / "assets", dir / "base", dir / "cache").exit_code == 0);
    for (const std::string kind : {"shaders", "scripts", "textures"})
      for (const int delay_ms : {0, 120}) {
        CAPTURE(kind);
        CAPTURE(delay_ms);
        const fs::path set = dir / (kind + std::to_string(delay_ms));
        fs::copy(dir / "base", set);
        fs::path pack;
        for (const auto& e : fs::directory_iterator(set))
          if (e.path().filename().string().rfind(kind, 0) == 0) pack = e.path();
        REQUIRE(!pack.empty());
        check_truncated_while_running(
            {KILN_PLAYER, set.string(), "--cache-root", (dir / "pc").string(), "--frames", "10"}, test::lavapipe_env(),
            pack, 5000, delay_ms);
      }
  }

  TEST_CASE("variant reflection that disagrees with its SPIR-V is refused naming the pack - variant and stage") {
    test::TempDir dir("hostile");
    REQUIRE(cook(fs::path(KILN_SOURCE_DIR) / "assets", dir / "base", dir / "cache").exit_code == 0);
    // Rewritten unchanged: the set the cook wrote passes the check, whatever its shaders declare.
    test::rewrite_set(dir / "base", dir / "same", [](auto, const std::string&, std::vector<std::byte> p) { return p; });
    const auto same = play(dir / "same", dir / "pc", {"--frames", "1"});
    CHECK_MESSAGE(same.exit_code == 0, same.output);

    struct Case {
      std::string name, message;
      std::function<bool(runtime::StageReflection&)> change;  // false: this variant cannot show it
    };
    using R = runtime::StageReflection;
    const Case cases[] = {
        {"no bindings", "is declared by the SPIR-V but missing", [](R& r) { return r.bindings.clear(), true; }},
        {"block resized", " in the reflection, set 0 binding 0 (uniform_buffer, ",
         [](R& r) {
           return !r.bindings.empty() && r.bindings[0].block_size && (*r.bindings[0].block_size += 16, true);
         }},
        {"no push constants", "push constants",
         [](R& r) { return !r.push_constants.empty() && (r.push_constants.clear(), true); }},
        {"no inputs", "inputs: 0 in the reflection", [](R& r) { return r.inputs.clear(), true; }},
        // The same input at the same location, read as another type.
        {"input retyped", "input at location 0: uvec4 in the reflection, vec3 in the SPIR-V",
         [](R& r) { return !r.inputs.empty() && (r.inputs[0].type = "uvec4", true); }},
        // The stored form of another version of Kiln: the bytes of the record, not its fields.
        {"another format",
         "format " + std::to_string(runtime::kReflectionFormat + 1) + ", this Kiln reads format " +
             std::to_string(runtime::kReflectionFormat) + ": build it again",
         nullptr}};
    for (const Case& c : cases) {
      CAPTURE(c.name);
      const fs::path set = dir / ("set-" + std::to_string(std::hash<std::string>{}(c.name)));
      std::string changed_variant;
      test::rewrite_set(dir / "base", set,
                        [&](runtime::PackKind kind, const std::string& name, std::vector<std::byte> p) {
                          if (kind != runtime::PackKind::kShaders || !changed_variant.empty() ||
                              name.find("unlit") == std::string::npos)
                            return p;
                          if (!c.change) {
                            std::string text(reinterpret_cast<const char*>(p.data()), p.size());
                            const std::string stored = "\"format\":" + std::to_string(runtime::kReflectionFormat);
                            const auto at = text.find(stored);
                            if (at == std::string::npos) return p;
                            p[at + stored.size() - 1] = std::byte('0' + (runtime::kReflectionFormat + 1) % 10);
                            changed_variant = name;
                            return p;
                          }
                          auto record = runtime::decode_variant_record(p, name);
                          if (!record || !record->stage("vert")) return p;
                          for (auto& stage : record->stages)
                            if (stage.stage == "vert" && !c.change(stage.reflection)) return p;
                          changed_variant = name;
                          return runtime::encode_variant_record(*record);
                        });
      REQUIRE(!changed_variant.empty());
      const auto played = play(set, dir / "pc");
      CHECK_MESSAGE(played.exit_code == 1, played.output);
      CHECK_MESSAGE(contains(played.output, "shaders."), played.output);
      CHECK_MESSAGE(contains(played.output, "unlit"), played.output);
      CHECK_MESSAGE(contains(played.output, ": vert: "), played.output);
      CHECK_MESSAGE(contains(played.output, c.message), played.output);
    }
  }

  TEST_CASE("a texture larger than the device holds is refused naming it - the driver never sees it") {
    test::TempDir dir("hostile");
    const fs::path project = test::copy_assets(dir);
    // 65536 pixels wide: inside Kiln's own limit, past what lavapipe's images hold.
    const auto made = test::run_process({"/usr/bin/oiiotool", "--pattern", "constant:color=1,0,0", "65536x1", "3", "-d",
                                         "uint8", "-o", (project / "textures" / "wide.png").string()});
    REQUIRE_MESSAGE(made.exit_code == 0, made.output);
    const fs::path material = project / "materials" / "sky.json";
    auto m = nlohmann::json::parse(test::slurp(material));
    m["textures"]["main_texture"] = "textures/wide.png";
    test::spit(material, m.dump());
    const auto cooked = cook(project, dir / "out", dir / "cache");
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
    const auto played = play(dir / "out", dir / "pc", {"--frames", "1"});
    CHECK_MESSAGE(played.exit_code == 1, played.output);
    CHECK_MESSAGE(contains(played.output, "textures/wide.png"), played.output);
    CHECK_MESSAGE(contains(played.output, "65536x1 with 17 levels is more than this device's images hold"),
                  played.output);
  }

  TEST_CASE("the player runs when its pipeline cache cannot be used - and says so in one line") {
    test::TempDir dir("hostile");
    REQUIRE(cook(fs::path(KILN_SOURCE_DIR) / "assets", dir / "base", dir / "cache").exit_code == 0);
    // A cache root the player filled once, then mounted read-only (root may mount; otherwise a
    // pipelines directory that is a file fails the same way, for any user, root included).
    struct Mount {
      fs::path at;
      bool mounted = false;
      ~Mount() {
        if (mounted) (void)test::run_process({"/bin/umount", at.string()});
      }
    } disk{dir / "ro"};
    fs::create_directories(disk.at);
    disk.mounted =
        !std::getenv("KILN_TEST_NO_MOUNT") &&
        test::run_process({"/bin/mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", disk.at.string()}).exit_code == 0;
    const fs::path root = disk.at / "cache";
    fs::create_directories(root);
    if (disk.mounted) {
      const auto filled = play(dir / "base", root, {"--frames", "1"});
      REQUIRE_MESSAGE(filled.exit_code == 0, filled.output);
      REQUIRE(fs::is_directory(root / "pipelines"));
      REQUIRE(test::run_process({"/bin/mount", "-o", "remount,ro", disk.at.string()}).exit_code == 0);
    } else {
      std::ofstream(root / "pipelines") << "not a directory";
    }
    MESSAGE(std::string(disk.mounted ? "a read-only tmpfs" : "a file in place of the pipelines directory"));
    const auto played = play(dir / "base", root, {"--frames", "1"});
    CHECK_MESSAGE(played.exit_code == 0, played.output);
    CHECK_MESSAGE(contains(played.output, "kiln-player: pipeline cache off: "), played.output);
    CHECK_MESSAGE(contains(played.output, (root / "pipelines").string()), played.output);
  }

  TEST_CASE("a compiled page whose code alignment no compiler writes is reported as damaged") {
    test::TempDir dir("hostile");
    REQUIRE(cook(fs::path(KILN_SOURCE_DIR) / "assets", dir / "base", dir / "cache").exit_code == 0);
    for (const std::uint32_t alignment : {0u, 3u, 1u << 31}) {
      CAPTURE(alignment);
      const fs::path set = dir / ("a" + std::to_string(alignment));
      test::rewrite_set(dir / "base", set,
                        [&](runtime::PackKind kind, const std::string& name, std::vector<std::byte> p) {
                          if (kind == runtime::PackKind::kScripts && name.rfind("page:", 0) == 0 && p.size() > 12)
                            std::memcpy(p.data() + 8, &alignment, 4);  // the header: magic, function offset, alignment
                          return p;
                        });
      const auto played =
          test::run_process({KILN_PLAYER, set.string(), "--cache-root", (dir / "pc").string(), "--json"},
                            {{"KILN_RENDER_DEVICE", "none"}});
      CHECK_MESSAGE(played.exit_code == 0, played.output);
      CHECK_MESSAGE(contains(played.output, "damaged compiled page (code alignment " + std::to_string(alignment) + ")"),
                    played.output);
      const auto at = played.output.find('{');
      REQUIRE(at != std::string::npos);
      const auto report = nlohmann::json::parse(played.output.substr(at, played.output.rfind('}') - at + 1));
      CHECK(report["pages_damaged"].get<int>() >= 1);
      CHECK(report["pages_loaded"] == 0);
    }
  }

  TEST_CASE("a material number outside a float's range is an error naming its JSON pointer") {
    test::TempDir dir("hostile");
    for (const std::string value : {"1e308", "-1e39", "5e-324"}) {
      CAPTURE(value);
      const fs::path project = test::copy_assets(dir, "p" + std::to_string(std::hash<std::string>{}(value)));
      const fs::path material = project / "materials" / "sky.json";
      auto m = nlohmann::json::parse(test::slurp(material));
      REQUIRE(m["params"].contains("color"));
      m["params"]["color"][1] = nlohmann::json::parse(value);
      test::spit(material, m.dump());
      const auto r = cook(project, dir / "out", dir / "cache");
      CHECK_MESSAGE(r.exit_code == 1, r.output);
      CHECK_MESSAGE(contains(r.output, "materials/sky.json: /params/color/1: "), r.output);
      CHECK_MESSAGE(contains(r.output, "outside the range of a float"), r.output);
    }
  }
}
