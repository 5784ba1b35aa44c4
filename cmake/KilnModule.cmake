# kiln_module(<name> [DEPS <targets>...] [PRIVATE_DEPS <targets>...])
# Declares the library target kiln_<name> (alias kiln::<name>) of engine/<name>: its sources are
# src/*.cpp, its only public include directory is include/. A module without sources yet is an
# INTERFACE target so that dependents can already name it.
function(kiln_module name)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp")
  set(target kiln_${name})
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include"
                                         PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/src")
    target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS} kiln_warnings)
  else()
    add_library(${target} INTERFACE)
    if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/include")
      target_include_directories(${target} INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include")
    endif()
    target_link_libraries(${target} INTERFACE ${ARG_DEPS})
  endif()
  add_library(kiln::${name} ALIAS ${target})
endfunction()
