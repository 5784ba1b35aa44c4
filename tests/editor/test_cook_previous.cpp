// A cook whose inputs changed in part copies what did not change from the set it replaces.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "cook_run.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/runtime/pack.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using test::copy_assets;
using test::slurp;
using test::spit;

using test::cook;
using test::Cooked;

fs::path shaders_pack(const fs::path& out) { return test::pack_file(out, "shaders"); }

// The record's lines, the one at `line` replaced by what `edit` makes of it.
void edit_line(const fs::path& record, std::size_t line, const std::function<std::string(std::string)>& edit) {
  std::istringstream in(slurp(record));
  std::string text, each;
  for (std::size_t i = 0; std::getline(in, each); ++i) text += (i == line ? edit(each) : each) + "\n";
  spit(record, text);
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("an edit of one shader builds its variants only - the others are copied from the set's previous pack") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir), out = dir / "out", cache = dir / "cache";
    const Cooked first = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(first.run.exit_code == 0, first.run.output);
    CHECK(first.totals("unchanged") == 0);
    REQUIRE(fs::exists(out / ".shaders-entries"));

    // unlit.frag edited: its variants change, and no other.
    const fs::path unlit = project / "shaders" / "unlit.frag";
    std::string text = slurp(unlit);
    text.replace(text.find("out_color = c;"), 14, "out_color = c * 0.5;");
    spit(unlit, text);
    const Cooked edited = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(edited.run.exit_code == 0, edited.run.output);
    int unlit_variants = 0;
    for (const auto& v : edited.report["variants"]) {
      const bool is_unlit = v["shader"] == "shaders/unlit";
      unlit_variants += is_unlit;
      CHECK_MESSAGE(v["result"] == (is_unlit ? "compile" : "unchanged"), v.dump());
    }
    REQUIRE(unlit_variants > 0);
    CHECK(edited.totals("compiled") == unlit_variants);
    CHECK(edited.totals("cache_hits") == 0);
    CHECK(edited.totals("unchanged") == edited.totals("variants") - unlit_variants);
    CHECK(edited.run.output.find("unchanged, copied from the previous pack") != std::string::npos);

    // The set is the one a cook from nothing makes of the edited project, byte for byte.
    const Cooked fresh = cook(dir, project, dir / "fresh", dir / "fresh-cache");
    REQUIRE_MESSAGE(fresh.run.exit_code == 0, fresh.run.output);
    const std::string expected = slurp(shaders_pack(dir / "fresh"));
    CHECK(slurp(shaders_pack(out)) == expected);

    // A damaged entry of the previous pack is not copied: that variant comes from the cache.
    const fs::path pack = shaders_pack(out);
    {
      auto whole = runtime::Pack::open(pack, runtime::PackKind::kShaders);
      REQUIRE(whole);
      const auto names = (*whole)->names();
      const auto variant = std::find_if(
          names.begin(), names.end(), [](const std::string& n) { return n.find("shaders/lit") != std::string::npos; });
      REQUIRE(variant != names.end());
      const auto payload = **(*whole)->find(*variant);
      const auto at = std::streamoff(payload.data() - (*whole)->bytes().data() + 40);
      std::fstream f(pack, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(at);
      f.put(char(std::to_integer<int>(payload[40]) ^ 0x5a));
    }
    const Cooked damaged = cook(dir, project, out, cache);
    REQUIRE_MESSAGE(damaged.run.exit_code == 0, damaged.run.output);
    CHECK(damaged.totals("cache_hits") == 1);
    CHECK(damaged.totals("compiled") == 0);
    CHECK(damaged.totals("unchanged") == damaged.totals("variants") - 1);
    CHECK(slurp(shaders_pack(out)) == expected);

    // The record counts only for the pack it describes, and the build that wrote it; without the
    // inputs record, the pack is not kept whole and each variant is copied or built.
    const auto cook_again = [&](std::size_t line, const std::function<std::string(std::string)>& edit) {
      fs::remove(out / ".shaders-inputs");
      edit_line(out / ".shaders-entries", line, edit);
      const Cooked c = cook(dir, project, out, cache);
      REQUIRE_MESSAGE(c.run.exit_code == 0, c.run.output);
      CHECK(slurp(shaders_pack(out)) == expected);
      return c;
    };
    CHECK(cook_again(9999, [](std::string l) { return l; }).totals("unchanged") == damaged.totals("variants"));
    CHECK(cook_again(1, [](std::string l) {
            return l.substr(0, l.size() - 1) + (l.back() == '0' ? "1" : "0");
          }).totals("unchanged") == 0);
    CHECK(cook_again(0, [](std::string l) {
            return l.substr(0, l.size() - 1) + (l.back() == '0' ? "1" : "0");
          }).totals("unchanged") == 0);

    // A pack cooked for another identity (another compiler, say) is not copied from, whatever the
    // record says.
    {
      auto whole = runtime::Pack::open(shaders_pack(out), runtime::PackKind::kShaders);
      REQUIRE(whole);
      runtime::PackWriter other(runtime::PackKind::kShaders, (*whole)->identity() + " another compiler");
      for (const std::string& name : (*whole)->names()) other.add(name, **(*whole)->find(name));
      const fs::path path = shaders_pack(out);
      whole->reset();
      REQUIRE(other.write(path));
      char checksum[17];
      std::snprintf(checksum, sizeof checksum, "%016llx", static_cast<unsigned long long>(*other.checksum("other")));
      edit_line(out / ".shaders-entries", 1, [&](std::string l) { return l.substr(0, l.find(' ') + 1) + checksum; });
    }
    CHECK(cook_again(9999, [](std::string l) { return l; }).totals("unchanged") == 0);

    // --verify builds every variant, whatever the records say.
    const Cooked verified = cook(dir, project, out, cache, {"--verify"});
    REQUIRE_MESSAGE(verified.run.exit_code == 0, verified.run.output);
    CHECK(verified.totals("unchanged") == 0);
  }
}
