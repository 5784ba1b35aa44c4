# kiln_module(<name> [DEPS <targets>...] [PRIVATE_DEPS <targets>...])
# Declares the library target kiln_<name> (alias kiln::<name>, exported as kiln::<name>) of
# engine/<name>: its sources are src/*.cpp, its only public include directory is include/ (in an
# installed tree: <prefix>/include). A module without sources yet is an INTERFACE target so that
# dependents can already name it.
function(kiln_module name)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp")
  set(target kiln_${name})
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>"
                                                "$<INSTALL_INTERFACE:include>"
                                         PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/src")
    # Kiln's warnings apply to its own build only, never to a project that links it.
    target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS} "$<BUILD_INTERFACE:kiln_warnings>")
    target_compile_options(${target} PRIVATE ${KILN_ENGINE_COMPILE_OPTIONS})
  else()
    add_library(${target} INTERFACE)
    if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/include")
      target_include_directories(${target} INTERFACE "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>"
                                                     "$<INSTALL_INTERFACE:include>")
    endif()
    target_link_libraries(${target} INTERFACE ${ARG_DEPS})
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(kiln::${name} ALIAS ${target})
endfunction()
