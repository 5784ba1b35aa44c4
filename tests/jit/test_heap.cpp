// The scripts' heap on its own: which root words keep an object, what a collection frees and
// reuses, and what it hands back to the system.

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "../../engine/jit/src/heap.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KILN_TEST_ASAN 1
#endif
#if defined(KILN_TEST_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace kiln::jit {
namespace {

std::uint64_t collect_with(Heap& heap, std::vector<Value>& roots) {
  const std::span<const Value> runs[] = {{roots.data(), roots.size()}};
  return heap.collect(runs);
}

Value ref(void* p) {
  Value v;
  v.ref = p;
  return v;
}

}  // namespace

TEST_SUITE("jit") {
  TEST_CASE("heap: a root word keeps an object only when it is exactly a live object's address") {
    Heap heap;
    String* kept = heap.new_string(std::string_view("kept"));
    String* other = heap.new_string(std::string_view("other"));
    REQUIRE(heap.object_at(kept) == kept);
    REQUIRE(heap.object_at(other) == other);
    // Inside an object, between cells, and outside the heap: no object.
    CHECK(heap.object_at(reinterpret_cast<char*>(kept) + 8) == nullptr);
    CHECK(heap.object_at(reinterpret_cast<char*>(kept) - 8) == nullptr);
    int not_heap = 0;
    CHECK(heap.object_at(&not_heap) == nullptr);
    // Past the cells handed out so far in the block: nothing there yet.
    CHECK(heap.object_at(reinterpret_cast<char*>(other) +
                         2 * (reinterpret_cast<char*>(other) - reinterpret_cast<char*>(kept))) == nullptr);

    // A word one byte past `other` keeps nothing: `other` is freed, `kept` survives.
    std::vector<Value> roots{ref(kept), ref(reinterpret_cast<char*>(other) + 1)};
    collect_with(heap, roots);
    CHECK(heap.object_at(kept) == kept);
    CHECK(heap.object_at(other) == nullptr);  // a free cell is not an object
    CHECK(kept->view() == "kept");
    // A freed payload past the free list's link is poisoned: AddressSanitizer reports a read of it,
    // and without it the bytes read as 0xdd (a length or pointer that fails at once).
    const char* freed = reinterpret_cast<const char*>(other) + 8;
#if defined(KILN_TEST_ASAN)
    CHECK(__asan_address_is_poisoned(freed));
#else
    CHECK(static_cast<unsigned char>(freed[0]) == 0xdd);
#endif
  }

  TEST_CASE("heap: a reused block's cells past those handed out are no objects whatever bytes they hold") {
    Heap heap;
    // Two blocks of small strings, all garbage: the older block becomes a spare holding their bytes.
    for (int i = 0; i < 5000; ++i) heap.new_string(std::string_view("old string bytes"));
    std::vector<Value> none;
    collect_with(heap, none);
    // A record of another size class takes the spare: one cell handed out, the rest still old bytes.
    Record* rec = heap.new_record(5, 0);
    REQUIRE(heap.object_at(rec) == rec);
    const std::size_t cell = sizeof(Record) + 5 * sizeof(Value) + 8;  // header + payload, a 16-byte step
    const std::size_t step = (cell + Heap::kCellStep - 1) / Heap::kCellStep * Heap::kCellStep;
    for (std::size_t k = 1; k < 40; ++k) {
      CAPTURE(k);
      CHECK(heap.object_at(reinterpret_cast<char*>(rec) + k * step) == nullptr);
    }
  }

  TEST_CASE("heap: what a live object references survives while the rest is freed and its cells reused") {
    Heap heap;
    Array* list = heap.new_array(/*refs=*/true);
    String* in_list = heap.new_string(std::string_view("in the list"));
    list->push_back(ref(in_list));
    Record* rec = heap.new_record(2, /*refs=*/0b10);
    String* in_record = heap.new_string(std::string_view("in the record"));
    rec->fields()[0].n = 1.5;
    rec->fields()[1].ref = in_record;
    Closure* fn = heap.new_closure(3, 1);
    Cell* cell = heap.new_cell(/*refs=*/true);
    String* in_cell = heap.new_string(std::string_view("in the cell"));
    cell->value.ref = in_cell;
    fn->cells()[0].ref = cell;
    String* garbage = heap.new_string(std::string_view("garbage"));

    std::vector<Value> roots{ref(list), ref(rec), ref(fn)};
    const std::uint64_t live = collect_with(heap, roots);
    CHECK(live > 0);
    for (void* p :
         {static_cast<void*>(list), static_cast<void*>(in_list), static_cast<void*>(rec), static_cast<void*>(in_record),
          static_cast<void*>(fn), static_cast<void*>(cell), static_cast<void*>(in_cell)})
      CHECK(heap.object_at(p) == p);
    CHECK(heap.object_at(garbage) == nullptr);
    CHECK(in_record->view() == "in the record");
    CHECK(in_cell->view() == "in the cell");

    // The freed cell is the next one of its size handed out.
    String* again = heap.new_string(std::string_view("garbage"));
    CHECK(static_cast<void*>(again) == static_cast<void*>(garbage));

    // A record's number field is not followed: a number with an object's bits keeps nothing.
    rec->fields()[0].ref = again;
    rec->fields()[1].ref = nullptr;
    collect_with(heap, roots);
    CHECK(heap.object_at(again) == nullptr);
    CHECK(heap.object_at(in_record) == nullptr);
  }

  TEST_CASE("heap: pinned objects stay without roots and large objects are collected like cells") {
    Heap heap;
    String* pinned = heap.new_string(std::string_view("constant"));
    heap.pin(pinned);
    const std::string big(4000, 'x');
    String* large = heap.new_string(big);
    String* large_kept = heap.new_string(big);
    REQUIRE(heap.object_at(large) == large);
    std::vector<Value> roots{ref(large_kept)};
    collect_with(heap, roots);
    CHECK(heap.object_at(pinned) == pinned);
    CHECK(heap.object_at(large) == nullptr);
    CHECK(heap.object_at(large_kept) == large_kept);
    CHECK(large_kept->view() == big);
    // Objects made after a collection are found too, before the next one sorts them.
    std::vector<String*> later;
    for (int i = 0; i < 20; ++i) later.push_back(heap.new_string(big));
    for (String* s : later) CHECK(heap.object_at(s) == s);
    CHECK(heap.object_at(large_kept) == large_kept);
  }

  TEST_CASE("heap: blocks emptied by a collection are kept for reuse up to a bound and the rest returned") {
    Heap heap;
    // Many blocks of garbage in one size class, then of another.
    for (int i = 0; i < 80000; ++i) heap.new_string(std::string_view("garbage string"));
    const std::size_t full = heap.block_count();
    REQUIRE(full > 30);
    std::vector<Value> none;
    collect_with(heap, none);
    CHECK(heap.block_count() <= 1);  // only each class's newest block stays in use
    // Emptied blocks are kept for reuse, up to the bound (as many as are in use, at least 16); the
    // rest went back to the system.
    CHECK(heap.spare_block_count() == Heap::kSpareBlocks);
    // The spare blocks serve another size class without new memory, and hold what is live.
    std::vector<Value> roots;
    for (int i = 0; i < 2000; ++i) roots.push_back(ref(heap.new_record(6, 0)));
    collect_with(heap, roots);
    for (const Value& v : roots) CHECK(heap.object_at(v.ref) == v.ref);
  }
}

}  // namespace kiln::jit
