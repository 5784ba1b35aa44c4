#pragma once
// The scripts' heap: arrays, strings, records, closures and the cells of captured locals,
// collected by mark and sweep. Private to engine/jit.
//
// Every object has a header just before its payload, and a Value holding the object points at the
// payload (an array's payload is its abi::ArrayData, which compiled code reads). Objects of up to
// 256 bytes with their header (nearly all: strings of names and messages, records, closures, cells,
// array headers) are cells of 64 KiB blocks, one size class (16-byte steps) a block: an allocation
// takes the first cell of its class's free list or the next unused cell of the class's newest block,
// and a sweep rebuilds the free lists in address order and keeps blocks left empty as spares for
// any class (as many as are in use, at least 16; the rest go back to the system), as segregated-fit
// allocators (Boehm's, jemalloc's small classes) do. Larger objects are allocated one
// by one. Under AddressSanitizer a free cell's payload is poisoned, so a use after free is still
// reported at the read. The collector is
// precise inside the heap (an array of references is traced element by element, a record by its
// mask of reference fields, a closure by its cells, a cell when it holds a reference; an array of
// numbers and a string hold no references) and conservative at the roots: the interpreter's
// registers and the module variables carry no types at run time, so every root word that equals
// the address of a live object keeps it (a number that happens to have those bits keeps garbage
// alive, never the reverse), as conservative stack scanning does in Boehm's collector. A root word
// is looked up by its block (the address rounded down to 64 KiB, among the sorted blocks), then must
// be exactly a used cell's payload; or it must be one of the large objects.
//
// Collection happens only at an allocation the interpreter's code makes (for a compiled page too,
// through runtime_op), where every live value is in the register stack: compiled pages store the
// registers they wrote before a call, a runtime_op and handing an instruction to the interpreter,
// and allocate nothing themselves (an append within capacity is not an allocation).
//
// Thread-safety: owned by one Vm, used by the thread running it.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kiln/jit/bytecode.h"
#include "values.h"

namespace kiln::jit {

enum class ObjectKind : std::uint8_t {
  kFree,      // a free cell of a block (on its class's free list)
  kArray,     // an array of numbers or booleans
  kRefArray,  // an array of references (strings, arrays, records)
  kString,
  kRecord,
  kClosure,
  kCell,
};

struct ObjectHeader {
  ObjectKind kind;
  std::uint8_t marked;
  std::uint16_t spare;
  std::uint32_t spare_word;
};
static_assert(sizeof(ObjectHeader) == 8);

// An immutable string: its length, the bytes and a terminating zero. Strings are neither interned
// nor hashed: equality compares the lengths, then the bytes (no table is keyed by strings).
struct String {
  std::uint32_t length;
  std::uint32_t spare;
  const char* bytes() const { return reinterpret_cast<const char*>(this + 1); }
  char* bytes() { return reinterpret_cast<char*>(this + 1); }
  std::string_view view() const { return {bytes(), length}; }
};
static_assert(sizeof(String) == 8);

// A record: its fields (Values) after a mask of those that hold references. Compiled code reads
// and writes field i at abi::kRecordFieldsOffset + 8 i.
struct Record {
  std::uint64_t refs;  // bit i: field i is a reference
  std::uint32_t count;
  std::uint32_t spare;
  Value* fields() { return reinterpret_cast<Value*>(this + 1); }
  const Value* fields() const { return reinterpret_cast<const Value*>(this + 1); }
};
static_assert(sizeof(Record) == abi::kRecordFieldsOffset);

// A function value: the function and the cells of its upvalues (jit_abi.h's layout).
struct Closure {
  std::uint32_t function;
  std::uint32_t count;
  Value* cells() { return reinterpret_cast<Value*>(this + 1); }  // each a Cell*
  const Value* cells() const { return reinterpret_cast<const Value*>(this + 1); }
};
static_assert(sizeof(Closure) == abi::kClosureCellsOffset);

// A captured local: its value, shared by the function that declared it and every closure of it.
struct Cell {
  Value value;
  std::uint64_t refs;  // the value is a reference
};

bool strings_equal(const String* a, const String* b);
// Byte order, a shorter string first when it is a prefix (Lua's order in the C locale).
int compare_strings(const String* a, const String* b);
// EQS, LTS or LES of the strings in b and c: 1 or 0.
double string_comparison(Op op, Value b, Value c);

inline ObjectHeader& header_of(const void* payload) {
  return *reinterpret_cast<ObjectHeader*>(const_cast<char*>(static_cast<const char*>(payload)) - sizeof(ObjectHeader));
}

class Heap {
 public:
  Heap() = default;
  ~Heap();
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  Array* new_array(bool refs);
  // A string of `length` bytes, to be written by the caller.
  String* new_string(std::size_t length);
  String* new_string(std::string_view bytes);
  // A record of `count` fields, all 0.
  Record* new_record(unsigned count, std::uint64_t refs);
  // A closure of `function` with `count` upvalue cells (to be set by the caller before anything
  // else is allocated), and a cell holding 0.
  Closure* new_closure(std::uint32_t function, unsigned count);
  Cell* new_cell(bool refs);
  // A constant of the program: never collected, and a root.
  void pin(void* payload);

  // Marks what the roots reach (each root word that is an object's address), frees the rest.
  // Returns the bytes still live.
  std::uint64_t collect(std::span<const std::span<const Value>> roots);
  // Frees every object.
  void clear();

  // The live object whose payload is at `word`, or nullptr: the collector's test of a root word.
  void* object_at(const void* word) const;
  std::size_t block_count() const { return blocks_.size(); }
  std::size_t spare_block_count() const { return spare_.size(); }

  static constexpr std::size_t kBlockBytes = std::size_t{64} << 10;
  static constexpr std::size_t kCellStep = 16;
  static constexpr std::size_t kLargestCell = 256;  // header included
  static constexpr std::size_t kSizeClasses = kLargestCell / kCellStep;
  static constexpr std::size_t kSpareBlocks = 16;  // emptied blocks kept at least, for the next allocations

 private:
  struct Block;
  struct FreeCell;

  void* allocate(ObjectKind kind, std::size_t payload);
  void* allocate_cell(std::size_t size_class);
  void* allocate_large(std::size_t bytes);
  void mark(void* payload);
  void trace(void* payload);
  std::uint64_t sweep_blocks();
  std::uint64_t sweep_large();
  static void destroy(void* payload);
  static std::uint64_t bytes_of(const void* payload);

  std::vector<Block*> blocks_;                 // sorted by address
  std::vector<Block*> spare_;                  // empty blocks kept for the next allocations
  std::array<Block*, kSizeClasses> newest_{};  // where each class takes unused cells
  std::array<FreeCell*, kSizeClasses> free_{};
  std::vector<void*> large_;  // payloads: the first large_sorted_ sorted by address, then newer ones
  std::size_t large_sorted_ = 0;
  std::vector<void*> pinned_;
  std::vector<void*> grey_;
};

}  // namespace kiln::jit
