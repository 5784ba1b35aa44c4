#include "heap.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>

#include <sanitizer/asan_interface.h>

namespace kiln::jit {

bool strings_equal(const String* a, const String* b) {
  return a == b || (a->length == b->length && std::memcmp(a->bytes(), b->bytes(), a->length) == 0);
}

int compare_strings(const String* a, const String* b) {
  const int c = std::memcmp(a->bytes(), b->bytes(), std::min(a->length, b->length));
  if (c != 0) return c;
  return a->length < b->length ? -1 : a->length > b->length ? 1 : 0;
}

double string_comparison(Op op, Value b, Value c) {
  const auto* x = static_cast<const String*>(b.ref);
  const auto* y = static_cast<const String*>(c.ref);
  if (op == Op::kEqS) return strings_equal(x, y) ? 1 : 0;
  const int order = compare_strings(x, y);
  return (op == Op::kLtS ? order < 0 : order <= 0) ? 1 : 0;
}

// A block's first 16 bytes describe it; its cells follow, each an ObjectHeader and a payload.
struct Heap::Block {
  std::uint32_t cell_bytes;
  std::uint32_t used;  // cells handed out at least once (the rest were never touched)
  std::uint32_t capacity;
  std::uint32_t spare;
  static constexpr std::size_t kFirstCell = 16;
  std::size_t size_class() const { return cell_bytes / kCellStep - 1; }
  char* cell(std::size_t i) { return reinterpret_cast<char*>(this) + kFirstCell + i * cell_bytes; }
};

// A free cell: its header says kFree and its payload's first word links the class's free list.
struct Heap::FreeCell {
  ObjectHeader header;
  FreeCell* next;
};

namespace {

// A freed payload is filled with 0xdd first: a reference the collector missed then reads a huge
// length or a wild element pointer and fails at once instead of reading whatever reuses the memory.
void poison(void* payload, std::size_t bytes) {
  std::memset(payload, 0xdd, bytes);
  ASAN_POISON_MEMORY_REGION(payload, bytes);
}

}  // namespace

Heap::~Heap() { clear(); }

void* Heap::allocate(ObjectKind kind, std::size_t payload) {
  const std::size_t bytes = sizeof(ObjectHeader) + payload;
  void* p = bytes <= kLargestCell ? allocate_cell((bytes + kCellStep - 1) / kCellStep - 1) : allocate_large(bytes);
  header_of(p) = ObjectHeader{kind, 0, 0, 0};
  return p;
}

void* Heap::allocate_cell(std::size_t size_class) {
  const std::size_t cell_bytes = (size_class + 1) * kCellStep;
  char* cell = nullptr;
  if (FreeCell* f = free_[size_class]) {
    free_[size_class] = f->next;
    cell = reinterpret_cast<char*>(f);
  } else {
    Block* b = newest_[size_class];
    if (!b || b->used == b->capacity) {
      void* memory = nullptr;
      if (!spare_.empty()) {
        memory = spare_.back();
        spare_.pop_back();
      } else if (!(memory = std::aligned_alloc(kBlockBytes, kBlockBytes))) {
        throw std::bad_alloc();
      }
      b = static_cast<Block*>(memory);
      b->cell_bytes = static_cast<std::uint32_t>(cell_bytes);
      b->used = 0;
      b->capacity = static_cast<std::uint32_t>((kBlockBytes - Block::kFirstCell) / cell_bytes);
      b->spare = 0;
      ASAN_POISON_MEMORY_REGION(b->cell(0), kBlockBytes - Block::kFirstCell);
      blocks_.insert(std::lower_bound(blocks_.begin(), blocks_.end(), b, std::less<Block*>()), b);
      newest_[size_class] = b;
    }
    cell = b->cell(b->used++);
  }
  ASAN_UNPOISON_MEMORY_REGION(cell, cell_bytes);
  return cell + sizeof(ObjectHeader);
}

void* Heap::allocate_large(std::size_t bytes) {
  auto* block = static_cast<char*>(std::malloc(bytes));
  if (!block) throw std::bad_alloc();
  void* p = block + sizeof(ObjectHeader);
  large_.push_back(p);
  return p;
}

void Heap::pin(void* payload) { pinned_.push_back(payload); }

Array* Heap::new_array(bool refs) {
  return new (allocate(refs ? ObjectKind::kRefArray : ObjectKind::kArray, sizeof(Array))) Array();
}

String* Heap::new_string(std::size_t length) {
  if (length > 0xffffffffu) throw std::bad_alloc();
  auto* s = static_cast<String*>(allocate(ObjectKind::kString, sizeof(String) + length + 1));
  s->length = static_cast<std::uint32_t>(length);
  s->spare = 0;
  s->bytes()[length] = 0;
  return s;
}

String* Heap::new_string(std::string_view bytes) {
  String* s = new_string(bytes.size());
  if (!bytes.empty()) std::memcpy(s->bytes(), bytes.data(), bytes.size());
  return s;
}

Record* Heap::new_record(unsigned count, std::uint64_t refs) {
  auto* r = static_cast<Record*>(allocate(ObjectKind::kRecord, sizeof(Record) + count * sizeof(Value)));
  r->refs = refs;
  r->count = count;
  r->spare = 0;
  for (unsigned i = 0; i < count; ++i) r->fields()[i].n = 0;
  return r;
}

Closure* Heap::new_closure(std::uint32_t function, unsigned count) {
  auto* c = static_cast<Closure*>(allocate(ObjectKind::kClosure, sizeof(Closure) + count * sizeof(Value)));
  c->function = function;
  c->count = count;
  for (unsigned i = 0; i < count; ++i) c->cells()[i].ref = nullptr;
  return c;
}

Cell* Heap::new_cell(bool refs) {
  auto* c = static_cast<Cell*>(allocate(ObjectKind::kCell, sizeof(Cell)));
  c->value.n = 0;
  c->refs = refs ? 1 : 0;
  return c;
}

std::uint64_t Heap::bytes_of(const void* payload) {
  const ObjectHeader& h = header_of(payload);
  if (h.kind == ObjectKind::kString)
    return sizeof(ObjectHeader) + sizeof(String) + static_cast<const String*>(payload)->length + 1;
  if (h.kind == ObjectKind::kRecord)
    return sizeof(ObjectHeader) + sizeof(Record) + static_cast<const Record*>(payload)->count * sizeof(Value);
  if (h.kind == ObjectKind::kClosure)
    return sizeof(ObjectHeader) + sizeof(Closure) + static_cast<const Closure*>(payload)->count * sizeof(Value);
  if (h.kind == ObjectKind::kCell) return sizeof(ObjectHeader) + sizeof(Cell);
  return sizeof(ObjectHeader) + sizeof(Array) + static_cast<const Array*>(payload)->capacity * sizeof(Value);
}

void Heap::mark(void* payload) {
  if (!payload) return;  // a record's reference field before its constructor set it
  ObjectHeader& h = header_of(payload);
  if (h.marked) return;
  h.marked = 1;
  switch (h.kind) {
    case ObjectKind::kRefArray: grey_.push_back(payload); break;
    case ObjectKind::kRecord:
      if (static_cast<Record*>(payload)->refs) grey_.push_back(payload);
      break;
    case ObjectKind::kClosure: grey_.push_back(payload); break;
    case ObjectKind::kCell:
      if (static_cast<Cell*>(payload)->refs) grey_.push_back(payload);
      break;
    case ObjectKind::kFree:
    case ObjectKind::kArray:
    case ObjectKind::kString: break;
  }
}

void Heap::trace(void* p) {
  const ObjectKind kind = header_of(p).kind;
  if (kind == ObjectKind::kRecord) {
    const auto* r = static_cast<const Record*>(p);
    for (unsigned i = 0; i < r->count; ++i)
      if ((r->refs >> i) & 1) mark(r->fields()[i].ref);
  } else if (kind == ObjectKind::kClosure) {
    const auto* c = static_cast<const Closure*>(p);
    for (unsigned i = 0; i < c->count; ++i) mark(c->cells()[i].ref);
  } else if (kind == ObjectKind::kCell) {
    mark(static_cast<const Cell*>(p)->value.ref);
  } else {
    for (const Value& e : *static_cast<const Array*>(p)) mark(e.a);  // elements of an array of references
  }
}

void* Heap::object_at(const void* word) const {
  const auto address = reinterpret_cast<std::uintptr_t>(word);
  const auto* base = reinterpret_cast<Block*>(address & ~(std::uintptr_t{kBlockBytes} - 1));
  if (std::binary_search(blocks_.begin(), blocks_.end(), base, std::less<const Block*>())) {
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(base) + Block::kFirstCell + sizeof(ObjectHeader);
    if (address < first || (address - first) % base->cell_bytes != 0) return nullptr;  // not a payload's start
    if ((address - first) / base->cell_bytes >= base->used) return nullptr;            // never handed out
    return header_of(word).kind == ObjectKind::kFree ? nullptr : const_cast<void*>(word);
  }
  // The large objects made since the last collection follow the sorted ones unsorted.
  const auto sorted_end = large_.begin() + static_cast<std::ptrdiff_t>(large_sorted_);
  if (std::binary_search(large_.begin(), sorted_end, word, std::less<const void*>()) ||
      std::find(sorted_end, large_.end(), word) != large_.end())
    return const_cast<void*>(word);
  return nullptr;
}

std::uint64_t Heap::collect(std::span<const std::span<const Value>> roots) {
  std::sort(large_.begin(), large_.end(), std::less<void*>());
  large_sorted_ = large_.size();  // every root word then a binary search
  for (void* p : pinned_) mark(p);
  for (const std::span<const Value> run : roots)
    for (const Value& v : run)
      if (v.ref)
        if (void* p = object_at(v.ref)) mark(p);
  while (!grey_.empty()) {
    void* p = grey_.back();
    grey_.pop_back();
    trace(p);
  }
  return sweep_blocks() + sweep_large();
}

void Heap::destroy(void* payload) {
  const ObjectKind kind = header_of(payload).kind;
  if (kind == ObjectKind::kArray || kind == ObjectKind::kRefArray) static_cast<Array*>(payload)->~Array();
}

std::uint64_t Heap::sweep_blocks() {
  // Blocks in address order, so each free list runs upward through memory.
  std::array<FreeCell**, kSizeClasses> tails;
  for (std::size_t c = 0; c < kSizeClasses; ++c) {
    free_[c] = nullptr;
    tails[c] = &free_[c];
  }
  std::uint64_t live = 0;
  std::size_t kept = 0;
  for (Block* b : blocks_) {
    FreeCell* head = nullptr;
    FreeCell** tail = &head;
    std::uint32_t survivors = 0;
    for (std::uint32_t i = 0; i < b->used; ++i) {
      char* cell = b->cell(i);
      void* payload = cell + sizeof(ObjectHeader);
      ObjectHeader& h = *reinterpret_cast<ObjectHeader*>(cell);
      if (h.kind != ObjectKind::kFree) {
        if (h.marked) {
          h.marked = 0;
          ++survivors;
          live += b->cell_bytes;
          if (h.kind == ObjectKind::kArray || h.kind == ObjectKind::kRefArray)
            live += static_cast<const Array*>(payload)->capacity * sizeof(Value);
          continue;
        }
        destroy(payload);
        h.kind = ObjectKind::kFree;
        poison(static_cast<char*>(payload) + sizeof(FreeCell*), b->cell_bytes - sizeof(FreeCell));
      }
      auto* f = reinterpret_cast<FreeCell*>(cell);
      *tail = f;
      tail = &f->next;
    }
    *tail = nullptr;
    if (survivors == 0 && newest_[b->size_class()] != b) {  // nothing lives here: a spare for any class
      ASAN_POISON_MEMORY_REGION(b->cell(0), kBlockBytes - Block::kFirstCell);
      spare_.push_back(b);
      continue;
    }
    if (head) {
      *tails[b->size_class()] = head;
      tails[b->size_class()] = tail;
    }
    blocks_[kept++] = b;
  }
  blocks_.resize(kept);
  // Spares for what the script allocates before the next collection (at least as much as lives
  // now, and kSpareBlocks); the rest go back to the system.
  const std::size_t keep = std::max(kSpareBlocks, blocks_.size());
  while (spare_.size() > keep) {
    ASAN_UNPOISON_MEMORY_REGION(spare_.back(), kBlockBytes);
    std::free(spare_.back());
    spare_.pop_back();
  }
  return live;
}

std::uint64_t Heap::sweep_large() {
  std::size_t kept = 0;
  std::uint64_t live = 0;
  for (void* p : large_) {
    ObjectHeader& h = header_of(p);
    if (h.marked) {
      h.marked = 0;
      live += bytes_of(p);
      large_[kept++] = p;
      continue;
    }
    destroy(p);
    std::memset(&h, 0xdd, sizeof(ObjectHeader) + sizeof(Value));
    std::free(&h);
  }
  large_.resize(kept);
  large_sorted_ = kept;  // the survivors keep their order
  return live;
}

void Heap::clear() {
  for (Block* b : blocks_) {
    for (std::uint32_t i = 0; i < b->used; ++i) {
      char* cell = b->cell(i);
      if (reinterpret_cast<ObjectHeader*>(cell)->kind != ObjectKind::kFree) destroy(cell + sizeof(ObjectHeader));
    }
    ASAN_UNPOISON_MEMORY_REGION(b, kBlockBytes);
    std::free(b);
  }
  for (void* p : large_) {
    destroy(p);
    std::free(&header_of(p));
  }
  for (Block* b : spare_) {
    ASAN_UNPOISON_MEMORY_REGION(b, kBlockBytes);
    std::free(b);
  }
  blocks_.clear();
  spare_.clear();
  large_.clear();
  large_sorted_ = 0;
  pinned_.clear();
  newest_.fill(nullptr);
  free_.fill(nullptr);
}

}  // namespace kiln::jit
