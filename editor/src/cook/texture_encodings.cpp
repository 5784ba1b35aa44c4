#include "cook/texture_encodings.h"

#include "kiln/cache/hash.h"
#include "kiln/textures/compressed_texture.h"
#include "kiln/textures/tx_store.h"

namespace kiln::cook {

TextureEncodings::TextureEncodings(cache::BlobStore* store) : store_(store) {
  if (!store_) return;
  if (auto ns = textures::open_encoding_namespace(*store_, texture_codecs::encoder_versions())) ns_ = std::move(*ns);
}

Result<TextureEncodings::Encoded> TextureEncodings::get(const std::string& name, std::span<const std::byte> tx,
                                                        const texture_codecs::ShippingChoice& choice,
                                                        core::WorkerPool* pool, bool verify) {
  if (choice.shipping == textures::TextureShipping::kRgba8) return Encoded{{textures::GpuFormat::kRgba8, {}}, false};
  cache::Xxh3Stream content;
  content.update("choice:").update(texture_codecs::describe_choice(choice)).update("\ntx:");
  content.update(std::string_view(reinterpret_cast<const char*>(tx.data()), tx.size()));
  const cache::BlobKey key{content.digest128()};
  std::optional<std::vector<std::byte>> cached;
  if (ns_) {
    bool corrupt = false;
    cached = store_->get(*ns_, key, &corrupt);
    discarded_ += corrupt;
  }
  // A cached entry is a record that decodes, or one byte naming the format a .tx ships as.
  std::optional<texture_codecs::ShippedTx> from_cache;
  if (cached && cached->size() == 1) {
    if (auto format = textures::gpu_format_from_value(std::uint8_t((*cached)[0]));
        format && !textures::is_block_compressed(*format))
      from_cache = texture_codecs::ShippedTx{*format, {}};
  } else if (cached) {
    if (auto record = textures::decode_compressed_texture(*cached, name + " (cached encoding)"))
      from_cache = texture_codecs::ShippedTx{record->format, std::move(*cached)};
  }
  if (cached && !from_cache) {
    store_->remove(*ns_, key);
    ++discarded_;
  }
  if (from_cache && !verify) return Encoded{std::move(*from_cache), false};

  auto shipped = texture_codecs::compress_tx(name, tx, choice, pool);
  if (!shipped) return shipped.error();
  const std::vector<std::byte> entry =
      shipped->record.empty() ? std::vector<std::byte>{std::byte(static_cast<std::uint8_t>(shipped->format))}
                              : shipped->record;
  if (from_cache && from_cache->format == shipped->format && from_cache->record == shipped->record)
    return Encoded{std::move(*from_cache), false};
  if (ns_) store_->put(*ns_, key, entry);
  if (from_cache)
    return make_error("cook: --verify: " + name + ": the cached encoding differs from a fresh one (replaced)");
  const bool encoded = !shipped->record.empty();
  return Encoded{std::move(*shipped), encoded};
}

}  // namespace kiln::cook
