#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "kiln/jit/program_io.h"
#include "kiln/lang/script.h"
#include "kiln/materials/material.h"
#include "kiln/runtime/script_api.h"

using namespace kiln;
using namespace kiln::jit;
using namespace kiln::lang;
namespace fs = std::filesystem;

namespace {

std::vector<HostSignature> sample_host_functions() {
  std::vector<runtime::MaterialRecord> records;
  for (const auto& e : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "assets/materials")) {
    auto material = materials::load_material(e.path().string());
    REQUIRE_MESSAGE(material, material.error().message);
    runtime::MaterialRecord record;
    record.file = "materials/" + e.path().filename().string();
    record.params = material->params;
    records.push_back(std::move(record));
  }
  std::vector<HostSignature> out;
  for (const auto& f : runtime::parameter_functions(records))
    out.push_back({f.name, std::vector<Type>(f.components, Type::kNumber), Type::kVoid});
  return out;
}

}  // namespace

TEST_SUITE("jit") {
  TEST_CASE("cooked bytecode round-trips for every corpus and sample script") {
    int checked = 0;
    for (const char* dir : {"tests/jit/scripts", "assets/scripts", "bench/scripts"})
      for (const auto& e : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / dir)) {
        if (e.path().extension() != ".lua") continue;
        // The sample project's scripts call its materials' engine functions.
        const auto host = std::string(dir) == "assets/scripts" ? sample_host_functions() : std::vector<HostSignature>{};
        auto program = compile_script_file(e.path().string(), host);
        REQUIRE_MESSAGE(program, program.error().message);
        const auto bytes = serialize_program(*program);
        auto back = deserialize_program(bytes, e.path().filename().string());
        REQUIRE_MESSAGE(back, back.error().message);
        CHECK(back->words == program->words);
        CHECK(back->entries == program->entries);
        CHECK(back->functions.size() == program->functions.size());
        CHECK(serialize_program(*back) == bytes);
        ++checked;
      }
    CHECK(checked >= 70);
  }

  TEST_CASE("damaged cooked bytecode is refused with the function and word - never run") {
    auto program = compile_script(
        "p.lua", "function f(a)\n  local s = 0\n  for i = 1, a do s = s + i end\n  return s\nend\nprint(f(10))\n");
    REQUIRE(program);
    const std::size_t fi = 1;  // f
    auto damaged = [&](auto change) {
      Program copy = *program;
      change(copy, copy.words.data() + copy.functions[fi].first_page * kPageWords);
      auto r = deserialize_program(serialize_program(copy), "p.lua");
      REQUIRE_FALSE(r);
      return r.error().message;
    };
    CHECK(damaged([](Program&, std::uint32_t* code) { code[0] = 0xff; }) ==
          "p.lua: cooked bytecode: function 'f' word 0: unknown instruction");
    const std::string frame = damaged([](Program& p, std::uint32_t* code) {
      for (std::size_t pc = 0; pc < p.functions[1].words; ++pc)
        if (op_of(code[pc]) == Op::kAdd) code[pc] = encode_abc(Op::kAdd, 250, a_of(code[pc]), a_of(code[pc]));
    });
    CHECK(frame.find("register 250 outside the frame of") != std::string::npos);
    const std::string jump = damaged([](Program& p, std::uint32_t* code) {
      for (std::size_t pc = 0; pc < p.functions[1].words; ++pc)
        if (op_of(code[pc]) == Op::kForLoop) code[pc] = encode_ad(Op::kForLoop, a_of(code[pc]), -3000);
    });
    CHECK(jump.find(": jump outside the function") != std::string::npos);
    const std::string call = damaged([](Program& p, std::uint32_t*) {
      std::uint32_t* chunk = p.words.data();
      for (std::size_t pc = 0; pc < p.functions[0].words; ++pc)
        if (op_of(chunk[pc]) == Op::kCall) chunk[pc] = encode_ad(Op::kCall, a_of(chunk[pc]), 77);
    });
    CHECK(call.find("function 'main chunk'") != std::string::npos);
    CHECK(call.find("function index out of range") != std::string::npos);

    auto bytes = serialize_program(*program);
    bytes.resize(bytes.size() / 2);
    auto cut = deserialize_program(bytes, "p.lua");
    REQUIRE_FALSE(cut);
    CHECK(cut.error().message.rfind("p.lua: cooked bytecode: ", 0) == 0);
  }
}
