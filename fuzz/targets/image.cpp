// Plain source images (PNG, TIFF) as the cook converts them: read_image.
#include "fuzz_target.h"
#include "kiln/textures/image.h"

KILN_FUZZ_TARGET(image) {
  const kiln::fuzz::MemoryFile file(data);
  auto image = kiln::textures::read_image(file.path());
  if (!image) {
    KILN_FUZZ_CHECK_ERROR(image.error(), file.path().string());
    return;
  }
  KILN_FUZZ_CHECK(image->width > 0 && image->height > 0);
  KILN_FUZZ_CHECK(image->pixels.size() == std::size_t(image->width) * image->height * image->channels);
}
