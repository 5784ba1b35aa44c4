#include "pack_pages.h"

#include <algorithm>
#include <cstdio>

#include "kiln/runtime/pack_contents.h"

namespace kiln::player {

void PackPages::report(const std::string& name, const std::string& message) {
  std::lock_guard lock(mu_);
  if (!reported_.insert(name).second) return;
  damaged_.fetch_add(1);
  std::fprintf(stderr, "kiln-player: %s: the page runs interpreted\n", message.c_str());
}

std::optional<jit::StoredPage> PackPages::find(std::span<const std::uint32_t> page,
                                               std::span<const std::uint16_t> entries, jit::abi::JitMode mode) {
  const std::string id = jit::aot_page_id(page, mode);
  if (recorder_) recorder_->page(id);
  const std::string name = runtime::entry_name(runtime::EntryKind::kPage, id);
  auto entry = pack_.find(name);
  if (!entry) {
    report(name, entry.error().message);
    return std::nullopt;
  }
  if (!entry->has_value()) return std::nullopt;  // not shipped: a page the cook leaves to the interpreter
  auto code = jit::decode_aot_page(**entry, page, pack_.path().string() + ": " + name);
  if (!code) {
    report(name, code.error().message);
    return std::nullopt;
  }
  if (!code->has_value()) return std::nullopt;
  if (!std::includes((*code)->entries.begin(), (*code)->entries.end(), entries.begin(), entries.end()))
    return std::nullopt;
  return std::move(**code);
}

}  // namespace kiln::player
