#pragma once
// VariantKey: the immutable identity of one shader variant.
// create() makes the keywords canonical — distinct, ordinal (byte) order, joined with ';' — so
// {FOG,SKIN} and {SKIN,FOG,FOG} are one key, whatever the locale. The source revision is part of the
// key: a hot-reloaded shader never hits the variant of its previous text.
//
// Thread-safety: an immutable value.

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

  friend bool operator==(const VariantKey&, const VariantKey&) = default;
};

struct VariantKeyHash {
  std::size_t operator()(const VariantKey& k) const;
};

}  // namespace kiln::materials
