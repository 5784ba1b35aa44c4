#include <doctest/doctest.h>

#include <ostream>
#include <vector>

#include "kiln/jit/register_liveness.h"

using namespace kiln::jit;

namespace {

RegisterSet regs(std::initializer_list<int> rs) {
  RegisterSet s;
  for (int r : rs) s.set(std::size_t(r));
  return s;
}

RegisterSet from(int first) {
  RegisterSet s;
  for (int r = first; r < 256; ++r) s.set(std::size_t(r));
  return s;
}

}  // namespace

TEST_SUITE("jit") {
  TEST_CASE("register liveness - what is read before written - calls keep their frame - leaving keeps all") {
    std::vector<std::uint32_t> page(kPageWords, 0);
    std::size_t k = 0;
    auto put = [&](std::uint32_t w) { page[k++] = w; };
    put(encode_abc(Op::kLoadN, 1, 0, 0)), put(0), put(0x40140000);                   // 0: r1 = 5
    put(encode_abc(Op::kAdd, 2, 1, 1));                                              // 3: r2 = r1 + r1
    put(encode_abc(Op::kMove, 4, 7, 0));                                             // 4: r4 = r7
    put(encode_ad(Op::kSetMod, 2, 0));                                               // 5: m0 = r2
    put(encode_ad(Op::kCall, 3, 1));                                                 // 6: r3 = f(r3, ...)
    put(encode_abc(Op::kJmpIf, 3, 0, 0) | (std::uint32_t(std::uint16_t(2)) << 16));  // 7: if r3 goto 10
    put(encode_abc(Op::kRet, 4, 0, 0));                                              // 8: return r4
    put(encode_abc(Op::kRet0, 0, 0, 0));                                             // 9
    put(encode_ad(Op::kJmp, 0, -100));                                               // 10: leaves the page
    const std::uint16_t entry = 0;
    const PageShape shape = analyze_page(page, std::span<const std::uint16_t>(&entry, 1));
    const std::vector<RegisterSet> live = live_registers(page, shape);
    CHECK(live[10] == from(0));                  // control leaves the page: anything may be read
    CHECK(live[8] == regs({4}));                 // the return reads r4 only
    CHECK(live[7] == (regs({3, 4}) | from(0)));  // the jump's target leaves the page
    CHECK(live[6] == from(0));                   // ... and the call reads its frame, r3 up
    CHECK(live[5] == from(0));
    CHECK(live[4] == (from(0) & ~regs({4})));     // r4 is written here before anything reads it
    CHECK(live[3] == (from(0) & ~regs({2, 4})));  // and r2 by the add
    // A page that ends in a return: what was read before written, nothing else.
    std::vector<std::uint32_t> leaf(kPageWords, 0);
    leaf[0] = encode_abc(Op::kMove, 5, 1, 0);   // r5 = r1
    leaf[1] = encode_abc(Op::kMul, 6, 5, 2);    // r6 = r5 * r2
    leaf[2] = encode_abc(Op::kLoadB, 5, 1, 0);  // r5 = true (r5 dead before)
    leaf[3] = encode_abc(Op::kAdd, 6, 6, 5);    // r6 = r6 + r5
    leaf[4] = encode_abc(Op::kRet, 6, 0, 0);
    const PageShape leaf_shape = analyze_page(leaf, std::span<const std::uint16_t>(&entry, 1));
    const std::vector<RegisterSet> leaf_live = live_registers(leaf, leaf_shape);
    CHECK(leaf_live[0] == regs({1, 2}));
    CHECK(leaf_live[1] == regs({2, 5}));
    CHECK(leaf_live[2] == regs({6}));
    CHECK(leaf_live[3] == regs({5, 6}));
    CHECK(leaf_live[4] == regs({6}));
    CHECK(leaf_live[5] == from(0));  // not an instruction start of this page
  }
}
