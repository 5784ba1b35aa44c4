#pragma once
// Threads with a large stack (glslang's recursion needs one), kept for the next job instead of
// ended after each. A thread with a 256 MiB stack made per job costs the mapping set up and torn
// down every time, and the teardown flushes the TLB of every core: on a two-core machine that was
// a fifth of a shader edit's time. A job that went deep gives its stack pages back when it ends,
// so a kept thread holds little more memory than a fresh one.
//
// Thread-safety: run() may be called from any number of threads at once; each call gets a thread
// of its own (an idle one, or a new one). Kept threads live until the process ends.

#include <cstddef>
#include <functional>

#include "kiln/core/result.h"

namespace kiln::core {

// Runs `job` on a thread with a `stack_bytes` stack (one thread per size is kept per concurrent
// caller) and calls `wait` on the calling thread until it ends: `wait(done_fd)` returns when
// done_fd (an eventfd the job's end makes readable) is readable. Fails only when no thread can
// be started (the message is the system's reason).
Status run_on_stack_thread(std::size_t stack_bytes, const std::function<void()>& job,
                           const std::function<void(int done_fd)>& wait);

// A kept thread keeps this much of its stack below the frame that runs jobs; deeper pages go back.
inline constexpr std::size_t kKeptStackBytes = std::size_t{1} << 20;
// The most stack any kept thread waiting for a job holds resident (for tests and diagnostics).
std::size_t largest_idle_stack_resident_bytes();

}  // namespace kiln::core
