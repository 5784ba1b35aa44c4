#include "heap.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace kiln::jit {

std::uint32_t hash_bytes(std::string_view s) {
  // Eight bytes a step, each mixed by a multiply and a shift (the finaliser of MurmurHash3's 64-bit
  // variant): what equality needs to reject different strings at once, at memory speed.
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ s.size();
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  std::uint64_t tail = 0;
  if (n) std::memcpy(&tail, p, n);
  h = (h ^ tail) * 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 29;
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

bool strings_equal(const String* a, const String* b) {
  return a == b ||
         (a->length == b->length && a->hash == b->hash && std::memcmp(a->bytes(), b->bytes(), a->length) == 0);
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

Heap::~Heap() { clear(); }

void* Heap::allocate(ObjectKind kind, std::size_t payload) {
  auto* block = static_cast<char*>(std::malloc(sizeof(ObjectHeader) + payload));
  if (!block) throw std::bad_alloc();
  auto* header = reinterpret_cast<ObjectHeader*>(block);
  *header = ObjectHeader{kind, 0, 0, 0, 0};
  void* p = block + sizeof(ObjectHeader);
  objects_.push_back(p);
  return p;
}

Array* Heap::new_array(bool refs) {
  return new (allocate(refs ? ObjectKind::kRefArray : ObjectKind::kArray, sizeof(Array))) Array();
}

String* Heap::new_string(std::size_t length) {
  if (length > 0xffffffffu) throw std::bad_alloc();
  auto* s = static_cast<String*>(allocate(ObjectKind::kString, sizeof(String) + length + 1));
  s->length = static_cast<std::uint32_t>(length);
  s->hash = 0;
  s->bytes()[length] = 0;
  return s;
}

String* Heap::new_string(std::string_view bytes) {
  String* s = new_string(bytes.size());
  if (!bytes.empty()) std::memcpy(s->bytes(), bytes.data(), bytes.size());
  seal(s);
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
    case ObjectKind::kArray:
    case ObjectKind::kString: break;
  }
}

std::uint64_t Heap::collect(std::span<const std::span<const Value>> roots) {
  // The root words, sorted: each object is looked up among them (the roots are a few hundred
  // words, the objects may be millions), so an object is reached from the roots when its address is
  // one of the words. Pinned objects are roots too.
  root_words_.clear();
  for (const std::span<const Value> run : roots)
    for (const Value& v : run)
      if (v.ref) root_words_.push_back(v.ref);
  std::sort(root_words_.begin(), root_words_.end());
  for (void* p : objects_)
    if (header_of(p).pinned || std::binary_search(root_words_.begin(), root_words_.end(), p)) mark(p);
  while (!grey_.empty()) {
    void* p = grey_.back();
    grey_.pop_back();
    const ObjectKind kind = header_of(p).kind;
    if (kind == ObjectKind::kRecord) {
      const auto* r = static_cast<const Record*>(p);
      for (unsigned i = 0; i < r->count; ++i)
        if ((r->refs >> i) & 1) mark(r->fields()[i].ref);
      continue;
    }
    if (kind == ObjectKind::kClosure) {
      const auto* c = static_cast<const Closure*>(p);
      for (unsigned i = 0; i < c->count; ++i) mark(c->cells()[i].ref);
      continue;
    }
    if (kind == ObjectKind::kCell) {
      mark(static_cast<const Cell*>(p)->value.ref);
      continue;
    }
    for (const Value& e : *static_cast<const Array*>(p)) mark(e.a);  // elements of an array of references
  }

  // Sweep, keeping the survivors in address order.
  std::size_t kept = 0;
  std::uint64_t live = 0;
  for (void* p : objects_) {
    ObjectHeader& h = header_of(p);
    if (h.marked) {
      h.marked = 0;
      live += bytes_of(p);
      objects_[kept++] = p;
      continue;
    }
    if (h.kind == ObjectKind::kArray || h.kind == ObjectKind::kRefArray) static_cast<Array*>(p)->~Array();
    // A reference the collector missed then reads a huge length or a wild element pointer and
    // fails at once, instead of reading whatever object reuses the memory.
    std::memset(&h, 0xdd, sizeof(ObjectHeader) + sizeof(Value));
    std::free(&h);
  }
  objects_.resize(kept);
  return live;
}

void Heap::clear() {
  for (void* p : objects_) {
    ObjectHeader& h = header_of(p);
    if (h.kind == ObjectKind::kArray || h.kind == ObjectKind::kRefArray) static_cast<Array*>(p)->~Array();
    std::free(&h);
  }
  objects_.clear();
}

}  // namespace kiln::jit
