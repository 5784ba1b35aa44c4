# A build identity computed from source files: the first 16 hex digits of a SHA-256 over `salt` and
# the files' contents (sorted by path). The files become configure dependencies, so an edit of any
# of them reconfigures and gives a new identity. Two programs built from one tree agree on it, which
# lets a tool refuse a plugin or a cache entry made from another tree.
#   kiln_source_id(<out-var> <salt> <file>...)
function(kiln_source_id out salt)
  set(sources ${ARGN})
  list(SORT sources)
  set(identity "${salt}")
  foreach(source IN LISTS sources)
    file(SHA256 "${source}" source_hash)
    string(APPEND identity ";${source_hash}")
  endforeach()
  string(SHA256 id "${identity}")
  string(SUBSTRING "${id}" 0 16 id)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${sources})
  set(${out} "${id}" PARENT_SCOPE)
endfunction()
