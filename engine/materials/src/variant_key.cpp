#include "kiln/materials/variant_key.h"

#include <algorithm>

#include "kiln/cache/hash.h"
#include "kiln/core/text.h"

namespace kiln::materials {

VariantKey VariantKey::create(std::string shader, std::string pass, const std::vector<std::string>& keywords,
                              int source_revision) {
  std::vector<std::string> sorted = keywords;
  // std::string's operator< compares bytes (char_traits<char>): ordinal, never locale-aware.
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string joined;
  for (const std::string& k : sorted) {
    if (!joined.empty()) joined += ';';
    joined += k;
  }
  VariantKey key{std::move(shader), std::move(pass), std::move(joined), source_revision};
  key.hash = VariantKeyHash::of(key);
  return key;
}

std::vector<std::string> VariantKey::keyword_list() const { return split_nonempty(keywords, ';'); }

std::string VariantKey::name() const { return shader + "|" + pass + "|" + keywords; }

std::string VariantKey::digest() const {
  return cache::sha256_hex(shader + "|" + pass + "|" + keywords + "|" + std::to_string(source_revision)).substr(0, 12);
}

std::size_t VariantKeyHash::of(const VariantKey& k) {
  std::size_t h = std::hash<std::string>{}(k.shader);
  auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  mix(std::hash<std::string>{}(k.pass));
  mix(std::hash<std::string>{}(k.keywords));
  mix(std::hash<int>{}(k.source_revision));
  return h;
}

}  // namespace kiln::materials
