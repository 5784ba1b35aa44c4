// Preloaded into a child process by the tests (LD_PRELOAD): every thread start fails as it does when
// the system's limit on threads or processes is reached (EAGAIN), the case no test machine running
// as root can reach with a resource limit. Each refusal appends a line to $KILN_TEST_REFUSED_LOG,
// so a test knows the process did try. The sanitizers' own pthread_create interceptors reach this
// one as the next definition.

#include <cerrno>
#include <cstdio>
#include <cstdlib>

// pthread.h is not included: its declaration carries attributes a C++ definition cannot repeat, and
// C linkage matches by name alone.
extern "C" int pthread_create(void* /*thread*/, const void* /*attributes*/, void* (* /*start*/)(void*),
                              void* /*argument*/) {
  if (const char* log = std::getenv("KILN_TEST_REFUSED_LOG")) {
    if (std::FILE* out = std::fopen(log, "a")) {
      std::fputs("refused\n", out);
      std::fclose(out);
    }
  }
  return EAGAIN;
}
