# LLVM 14 through its CMake package (Debian's llvm-14-dev), as the shared libLLVM-14: the target
# kiln_llvm carries its include directory, definitions and library. LLVMConfig.cmake probes with the
# C compiler (for libffi and terminfo, which the shared library does not need here), so C is
# enabled for the probe alone.
enable_language(C)
find_package(LLVM 14 CONFIG REQUIRED HINTS /usr/lib/llvm-14/lib/cmake/llvm)
find_library(KILN_LLVM_LIBRARY NAMES "LLVM-${LLVM_VERSION_MAJOR}" LLVM PATHS ${LLVM_LIBRARY_DIRS} NO_DEFAULT_PATH REQUIRED)
separate_arguments(kiln_llvm_definitions UNIX_COMMAND "${LLVM_DEFINITIONS}")
list(TRANSFORM kiln_llvm_definitions REPLACE "^-D" "")
add_library(kiln_llvm INTERFACE)
target_include_directories(kiln_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(kiln_llvm INTERFACE ${kiln_llvm_definitions})
target_link_libraries(kiln_llvm INTERFACE ${KILN_LLVM_LIBRARY})
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION}: ${KILN_LLVM_LIBRARY}")
