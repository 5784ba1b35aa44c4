# What `cmake --install` puts in a prefix for a game to build against: the engine libraries a game
# links (static), their headers, and KilnConfig.cmake so that `find_package(Kiln)` gives the targets
# kiln::core, kiln::trust, kiln::usage, kiln::cache, kiln::materials, kiln::jit, kiln::lang, kiln::textures, kiln::runtime and
# kiln::project.
# The tools' own modules (glslang and LLVM behind them) are not installed as libraries. Components:
# `development` (libraries, headers, CMake package) and `tools` (kiln with its plugins, kiln-player).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(kiln_installed_modules core trust usage cache materials jit lang textures runtime project)
foreach(module IN LISTS kiln_installed_modules)
  install(TARGETS kiln_${module} EXPORT KilnTargets ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/engine/${module}/include/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
          COMPONENT development)
endforeach()
if(KILN_BUILD_TOOLS)
  install(TARGETS kiln kiln-player kiln-shader-worker kiln-page-worker RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT tools)
  # The plugins, where kiln looks: <bin>/../lib/kiln
  install(TARGETS kiln-tools kiln-jitc kiln-teximport LIBRARY DESTINATION lib/kiln COMPONENT tools)
endif()

set(kiln_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/Kiln")
install(EXPORT KilnTargets NAMESPACE kiln:: DESTINATION "${kiln_cmake_dir}" COMPONENT development)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/KilnConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/KilnConfig.cmake" INSTALL_DESTINATION "${kiln_cmake_dir}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/KilnConfig.cmake" "${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake"
        DESTINATION "${kiln_cmake_dir}" COMPONENT development)
