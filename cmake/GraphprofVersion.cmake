# The tool version in a generated header (at configure time), and the git revision in a generated
# source written at every build (cmake/GraphprofRevision.cmake): a build after a new commit or an
# edit bakes in the revision it was built from, not the one of the first configure.
# A copy of the tree without .git (e.g. on the GPU machine) can pass -DGRAPHPROF_REVISION=<sha>.
set(GRAPHPROF_REVISION "" CACHE STRING "git revision to bake in when .git is absent")
find_package(Git QUIET)
if(GRAPHPROF_WITH_CUDA)
  set(GRAPHPROF_BUILT_WITH_CUDA true)
else()
  set(GRAPHPROF_BUILT_WITH_CUDA false)
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/version.hpp.in
               ${CMAKE_BINARY_DIR}/generated/graphprof/core/version.hpp @ONLY)
set(GRAPHPROF_REVISION_SOURCE ${CMAKE_BINARY_DIR}/generated/git_revision.cpp)
add_custom_target(graphprof_revision
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${GRAPHPROF_REVISION_SOURCE}
          -DREVISION=${GRAPHPROF_REVISION} -DGIT=${GIT_EXECUTABLE} -P ${CMAKE_SOURCE_DIR}/cmake/GraphprofRevision.cmake
  BYPRODUCTS ${GRAPHPROF_REVISION_SOURCE}
  COMMENT "" VERBATIM)
