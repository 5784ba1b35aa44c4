// The libFuzzer entry of one fuzz_<name> executable: it links exactly one target.
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const kiln::fuzz::Body body = [] {
    auto& targets = kiln::fuzz::registry();
    if (targets.size() != 1)
      kiln::fuzz::contract_broken("a fuzz executable links exactly one target", __FILE__, __LINE__);
    return targets.begin()->second;
  }();
  body({data, size});
  return 0;
}
