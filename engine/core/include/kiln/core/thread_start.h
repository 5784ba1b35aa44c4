#pragma once
// Starting a thread without std::thread's exception. The system may refuse a thread (its limit on
// threads or processes, memory); every caller in Kiln has a way to go on without one (doing the work
// itself, fewer workers, no background uploads), and an uncaught std::system_error would end the
// process instead (tested by preloading a pthread_create that always fails).
//
// Thread-safety: may be called from any thread.

#include <functional>
#include <thread>

#include "kiln/core/result.h"

namespace kiln::core {

Result<std::thread> start_thread(std::function<void()> body);

}  // namespace kiln::core
