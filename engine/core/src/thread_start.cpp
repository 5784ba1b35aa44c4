#include "kiln/core/thread_start.h"

#include <system_error>

namespace kiln::core {

Result<std::thread> start_thread(std::function<void()> body) {
  try {
    return std::thread(std::move(body));
  } catch (const std::system_error& e) {
    return make_error(std::string("cannot start a thread: ") + e.what());
  }
}

}  // namespace kiln::core
