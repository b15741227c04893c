# Bakes the tool version and the git revision into a generated header (at configure time).
# A copy of the tree without .git (e.g. on the GPU machine) can pass -DGRAPHPROF_REVISION=<sha>.
set(GRAPHPROF_REVISION "" CACHE STRING "git revision to bake in when .git is absent")
set(GRAPHPROF_GIT_REVISION "${GRAPHPROF_REVISION}")
find_package(Git QUIET)
if(NOT GRAPHPROF_GIT_REVISION AND GIT_FOUND AND EXISTS ${CMAKE_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE _rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _rev)
    set(GRAPHPROF_GIT_REVISION ${_rev})
  endif()
endif()
if(NOT GRAPHPROF_GIT_REVISION)
  set(GRAPHPROF_GIT_REVISION "unknown")
endif()
if(GRAPHPROF_WITH_CUDA)
  set(GRAPHPROF_BUILT_WITH_CUDA true)
else()
  set(GRAPHPROF_BUILT_WITH_CUDA false)
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/version.hpp.in
               ${CMAKE_BINARY_DIR}/generated/graphprof/core/version.hpp @ONLY)
