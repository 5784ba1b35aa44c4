#pragma once
// libtiff reports errors through process-wide handlers. Kiln installs handlers that keep the first
// message of the calling thread, so that it reaches the caller in a Result instead of stderr.

#include <string>

#include "kiln/core/result.h"

namespace kiln::textures {

// Loads libtiff and installs the handlers (once), and clears the calling thread's message. Fails
// only when libtiff cannot be loaded.
Status begin_tiff_call();
// The calling thread's first libtiff message since begin_tiff_call(), or "".
const std::string& tiff_error();

}  // namespace kiln::textures
