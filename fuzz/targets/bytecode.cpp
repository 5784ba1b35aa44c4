// Serialised programs (what scripts.pack holds): deserialize_program and its verifier.
#include "fuzz_target.h"
#include "kiln/jit/program_io.h"

KILN_FUZZ_TARGET(bytecode) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data.data()), data.size());
  auto program = kiln::jit::deserialize_program(bytes, "fuzz.kbc");
  if (!program) {
    KILN_FUZZ_CHECK_ERROR(program.error(), "fuzz.kbc");
    return;
  }
  // What was accepted serialises back to bytes that are accepted again.
  auto again = kiln::jit::deserialize_program(kiln::jit::serialize_program(*program), "fuzz.kbc");
  KILN_FUZZ_CHECK(again.ok());
}
