#include "cook/cook_textures.h"

#include <algorithm>
#include <atomic>

#include "kiln/textures/compressed_texture.h"

namespace kiln::cook {
namespace {

// How a target ships a texture: its size cap and its encoding.
struct Shipping {
  std::uint32_t cap = 0;
  textures::TextureShipping shipping = textures::TextureShipping::kRgba8;
  textures::TextureQuality quality = textures::TextureQuality::kMedium;
  bool operator==(const Shipping&) const = default;
};

Shipping shipping_of(const runtime::ShaderTarget& t) { return {t.max_size, t.textures, t.texture_quality}; }

}  // namespace

CookedTextures cook_textures(const std::filesystem::path& root, std::span<const project::TextureInput> sources,
                             TextureConversions& conversions, TextureEncodings& encodings, bool verify,
                             const std::vector<runtime::ShaderTarget>& targets, core::WorkerPool& pool,
                             Progress& progress, CookErrors& errors) {
  // One conversion of every texture per distinct size cap, one encoding per distinct way of
  // shipping; the default target's is the set's own.
  std::vector<Shipping> ways;
  for (const auto& t : targets)
    if (std::find(ways.begin(), ways.end(), shipping_of(t)) == ways.end()) ways.push_back(shipping_of(t));
  if (ways.empty()) ways.push_back({});
  std::vector<std::uint32_t> caps;
  for (const Shipping& w : ways)
    if (std::find(caps.begin(), caps.end(), w.cap) == caps.end()) caps.push_back(w.cap);
  // The conversion each way ships: its cap's index in `caps`.
  std::vector<std::size_t> cap_of_way;
  for (const Shipping& w : ways) cap_of_way.push_back(std::find(caps.begin(), caps.end(), w.cap) - caps.begin());
  const std::size_t count = sources.size();
  std::size_t encoding_jobs = 0;
  for (const Shipping& w : ways) encoding_jobs += w.shipping != textures::TextureShipping::kRgba8 ? count : 0;
  const std::size_t total = count * caps.size() + encoding_jobs;
  std::vector<Result<TextureConversions::Tx>> converted(count * caps.size(), make_error("not converted"));
  std::atomic<std::size_t> done{0}, failed{0};
  pool.parallel_for(count * caps.size(), [&](std::size_t job) {
    const std::size_t i = job % count;
    textures::TextureSettings settings = sources[i].settings;
    settings.max_size = caps[job / count];
    converted[job] = conversions.get(root / sources[i].file, settings, verify);
    failed += !converted[job];
    progress.tick("textures", ++done, total);
  });

  // What ships, per way and texture: the .tx, or its encoding.
  std::vector<Result<TextureEncodings::Encoded>> shipped(count * ways.size(), make_error("not encoded"));
  pool.parallel_for(count * ways.size(), [&](std::size_t job) {
    const std::size_t i = job % count;
    const Shipping& way = ways[job / count];
    const auto& tx = converted[cap_of_way[job / count] * count + i];
    if (!tx) return;
    const texture_codecs::ShippingChoice choice{way.shipping, way.quality, sources[i].settings.gpu_format};
    shipped[job] = encodings.get(sources[i].file, tx->bytes, choice, &pool, verify);
    if (way.shipping == textures::TextureShipping::kRgba8) return;
    failed += !shipped[job];
    progress.tick("textures", ++done, total);
  });
  if (total > 0) progress.done("textures", failed);

  CookedTextures out;
  out.made_from.assign(count, std::nullopt);
  for (std::size_t i = 0; i < count; ++i) {
    std::optional<TextureMadeFrom> same;
    for (std::size_t c = 0; c < caps.size(); ++c) {
      const auto& tx = converted[c * count + i];
      const std::optional<TextureMadeFrom> read =
          tx ? std::optional<TextureMadeFrom>(TextureMadeFrom{tx->artist_tx, tx->made_from}) : std::nullopt;
      if (c == 0) same = read;
      if (read != same) same.reset();
    }
    out.made_from[i] = same;
  }
  for (const auto& r : converted) {  // in the project's order: a deterministic pack and report
    if (!r) {
      errors.add(r.error().message);
      continue;
    }
    out.converted += r->converted;
    out.from_tx += !r->artist_tx.empty();
  }
  const auto bytes_of = [&](std::size_t way, std::size_t i) -> const std::vector<std::byte>* {
    const auto& s = shipped[way * count + i];
    if (!s) return nullptr;
    if (!s->shipped.record.empty()) return &s->shipped.record;
    const auto& tx = converted[cap_of_way[way] * count + i];
    return tx ? &tx->bytes : nullptr;
  };
  for (std::size_t job = 0; job < shipped.size(); ++job) {
    const auto& s = shipped[job];
    if (!s) {
      if (converted[cap_of_way[job / count] * count + job % count]) errors.add(s.error().message);
      continue;
    }
    out.encoded += s->encoded;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const auto* bytes = bytes_of(0, i);
    if (!bytes) continue;
    out.files.emplace_back(sources[i].file, *bytes);
    if (auto described = textures::describe_shipped_texture(*bytes, sources[i].file)) {
      ++out.formats[std::string(textures::gpu_format_name(described->format))];
      out.gpu_bytes += described->gpu_bytes();
      for (const auto& l : described->levels)
        out.rgba8_gpu_bytes += textures::gpu_level_bytes(textures::GpuFormat::kRgba8, l.width, l.height);
    }
  }
  for (std::size_t t = 1; t < targets.size(); ++t) {
    const std::size_t way = std::find(ways.begin(), ways.end(), shipping_of(targets[t])) - ways.begin();
    if (way == 0) continue;  // the default's textures serve it
    for (std::size_t i = 0; i < count; ++i)
      if (const auto* bytes = bytes_of(way, i)) out.target_files.push_back({targets[t].id(), sources[i].file, *bytes});
  }
  out.capped = caps.size() > 1 || caps.front() != 0;
  return out;
}

}  // namespace kiln::cook
