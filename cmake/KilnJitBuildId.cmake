# The build identity of the script code generator: a hash of every source that decides what a
# compiled page contains (the compiler in engine/jitc, the ABI, the bytecode and its types, the page analysis and
# register liveness, the counted loops, the inlining rule and the helpers in engine/jit) and of LLVM's major version. Computed from the tree, not the binary, so
# that the cook (which links the compiler) and the player (which does not) built from one tree agree
# and a cook can fill the player's cache. Any change to those files reconfigures and gives a new
# build id, so older compiled pages are never served and are pruned as an older build.
#   kiln_jit_build_id(<out-var>)
include("${CMAKE_CURRENT_LIST_DIR}/KilnSourceId.cmake")
function(kiln_jit_build_id out)
  set(jit "${PROJECT_SOURCE_DIR}/engine/jit")
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/engine/jitc/src/*" "${PROJECT_SOURCE_DIR}/engine/jitc/include/*")
  list(APPEND sources "${jit}/include/kiln/jit/bytecode.h" "${jit}/include/kiln/jit/types.h" "${jit}/include/kiln/jit/jit_abi.h"
       "${jit}/include/kiln/jit/page_analysis.h" "${jit}/src/page_analysis.cpp" "${jit}/src/helpers.cpp"
       "${jit}/include/kiln/jit/inlining.h" "${jit}/src/inlining.cpp"
       "${jit}/include/kiln/jit/register_liveness.h" "${jit}/src/register_liveness.cpp"
       "${jit}/include/kiln/jit/counted_loops.h" "${jit}/src/counted_loops.cpp")
  kiln_source_id(id "llvm-14" ${sources})
  set(${out} "${id}" PARENT_SCOPE)
endfunction()
