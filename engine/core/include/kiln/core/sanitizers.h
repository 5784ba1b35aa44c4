#pragma once
// Which sanitizer this translation unit is built with, the same answer from GCC (__SANITIZE_*__)
// and clang (__has_feature): KILN_ASAN, KILN_TSAN, and KILN_SANITIZED for either.

#if defined(__SANITIZE_ADDRESS__)
#define KILN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define KILN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KILN_TSAN 1
#endif
#endif

#if defined(KILN_ASAN) || defined(KILN_TSAN)
#define KILN_SANITIZED 1
#endif
