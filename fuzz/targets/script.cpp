// Scripts: lexer, parser, checker and bytecode generation; a program that compiles survives a
// round trip through its serialised form.
#include "fuzz_target.h"
#include "kiln/jit/program_io.h"
#include "kiln/lang/script.h"

KILN_FUZZ_TARGET(script) {
  auto program = kiln::lang::compile_script("fuzz.lua", kiln::fuzz::as_text(data));
  if (!program) {
    KILN_FUZZ_CHECK_ERROR(program.error(), "fuzz.lua");
    return;
  }
  const auto bytes = kiln::jit::serialize_program(*program);
  auto back = kiln::jit::deserialize_program(bytes, "fuzz.kbc");
  KILN_FUZZ_CHECK(back.ok());
  KILN_FUZZ_CHECK(kiln::jit::serialize_program(*back) == bytes);
}
