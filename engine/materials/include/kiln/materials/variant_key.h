#pragma once
// VariantKey: the immutable identity of one shader variant.
// create() makes the keywords canonical — distinct, ordinal (byte) order, joined with ';' — so
// {FOG,SKIN} and {SKIN,FOG,FOG} are one key, whatever the locale. The source revision is part of the
// key: a hot-reloaded shader never hits the variant of its previous text. create() also hashes the
// key once, so that a cache lookup with it hashes no strings (a variant lookup is a per-draw path).
//
// Thread-safety: an immutable value: its fields are not changed after create() (the kept hash
// would no longer be theirs).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::materials {

struct VariantKey {
  std::string shader;
  std::string pass;
  std::string keywords;  // canonical: sorted, distinct, ';'-joined
  int source_revision = 0;
  // VariantKeyHash::of(*this), set by create(); 0 in a key made otherwise, which is hashed per use.
  std::size_t hash = 0;

  static VariantKey create(std::string shader, std::string pass, const std::vector<std::string>& keywords,
                           int source_revision);

  // The keywords one by one, in canonical order.
  std::vector<std::string> keyword_list() const;

  // "shader|pass|keywords": the variant's name in packs, reports and editor events (the revision
  // is not part of it: a cooked set holds one revision of each shader).
  std::string name() const;

  // First 12 lowercase hex characters of SHA-256("shader|pass|keywords|revision"). For logs and
  // pictures only: nothing is keyed on it.
  std::string digest() const;

  // The fields; the kept hash follows from them.
  friend bool operator==(const VariantKey& a, const VariantKey& b) {
    return a.source_revision == b.source_revision && a.shader == b.shader && a.pass == b.pass &&
           a.keywords == b.keywords;
  }
};

struct VariantKeyHash {
  std::size_t operator()(const VariantKey& k) const { return k.hash ? k.hash : of(k); }
  // The hash of the key's fields (what create() keeps).
  static std::size_t of(const VariantKey& k);
};

}  // namespace kiln::materials
