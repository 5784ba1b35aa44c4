#pragma once
// `kiln cook --previews`: a picture of every material, rendered from the set just written (the
// same pipelines, parameter blocks and textures the player uses), as <out>/previews/<material>.png.
// Without a Vulkan device the previews are skipped with one line; the cook still succeeds.

#include <filesystem>

#include "cook/cook_report.h"
#include "kiln/cache/blob_store.h"
#include "kiln/core/config.h"
#include "kiln/core/result.h"

namespace kiln::cook {

// Writes the previews and says what it wrote (the files, the device) or why it skipped them;
// previews of materials the set no longer has are removed. `store` (may be null) keeps the
// driver's pipeline cache.
Status write_previews(const std::filesystem::path& out, const Config& config, cache::BlobStore* store,
                      PreviewsReport& report);

}  // namespace kiln::cook
