// The config file (JSON): load_config with the bytes as the file and nothing else set.
#include "fuzz_target.h"
#include "kiln/core/config.h"

KILN_FUZZ_TARGET(config) {
  const kiln::fuzz::MemoryFile file(data);
  kiln::ConfigInputs inputs;
  inputs.file = file.path();
  inputs.env = {{"HOME", "/nonexistent-home"}};
  auto loaded = kiln::load_config(inputs);
  if (!loaded) KILN_FUZZ_CHECK_ERROR(loaded.error(), file.path().string());
}
