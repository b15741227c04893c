# Bakes the tool version and the git revision into a generated header.
find_package(Git QUIET)
set(GRAPHPROF_GIT_REVISION "unknown")
if(GIT_FOUND AND EXISTS ${CMAKE_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE _rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _rev)
    set(GRAPHPROF_GIT_REVISION ${_rev})
  endif()
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/version.hpp.in
               ${CMAKE_BINARY_DIR}/generated/graphprof/version.hpp @ONLY)
