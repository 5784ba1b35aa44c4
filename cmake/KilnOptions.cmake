# Warnings, sanitizers and the compiler launcher, applied to every Kiln target.
find_program(KILN_CCACHE ccache)
if(KILN_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  # The sloppiness lets ccache cache the files compiled with a precompiled header (the tests).
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros;${KILN_CCACHE}")
endif()

# lld links the test binary in about a second where GNU ld takes over ten.
find_program(KILN_LLD ld.lld)
if(KILN_LLD)
  add_link_options(-fuse-ld=lld)
endif()

add_library(kiln_warnings INTERFACE)
target_compile_options(kiln_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
  # Designated initializers name only what differs from the defaults.
  -Wno-missing-field-initializers
  # A switch over an enum without a default lists every enumerator: adding one (an instruction, a
  # descriptor kind, a format) stops the build where it is not handled.
  -Werror=switch)

if(KILN_SANITIZE)
  list(JOIN KILN_SANITIZE "," kiln_sanitizers)
  add_compile_options(-fsanitize=${kiln_sanitizers} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${kiln_sanitizers})
  if("address" IN_LIST KILN_SANITIZE)
    # Position-dependent executables: the sanitized test binary carries millions of relative
    # relocations (instrumented globals, vtables, test registrations), which a PIE applies at
    # every start. The suite starts it once per test case, and the start was half its time.
    add_link_options($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
  endif()
endif()

# Every Kiln program links this: in a sanitizer build it carries the sanitizers' default options
# (see sanitizer_defaults.cpp), so a program behaves the same under ctest and when run by hand.
add_library(kiln_sanitizer_defaults INTERFACE)
if(KILN_SANITIZE)
  target_sources(kiln_sanitizer_defaults INTERFACE "${CMAKE_CURRENT_LIST_DIR}/sanitizer_defaults.cpp")
endif()
