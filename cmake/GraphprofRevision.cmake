# Run at every build (cmake -P, from the graphprof_revision target): writes the git revision of the
# source tree into OUT, touching it only when it changed, so only that one file recompiles.
#   -DSOURCE_DIR=... -DOUT=... [-DREVISION=<given>] [-DGIT=<git executable>]
set(rev "${REVISION}")
if(NOT rev AND GIT AND EXISTS ${SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND out)
    set(rev "${out}")
  endif()
endif()
if(NOT rev)
  set(rev "unknown")
endif()
set(text "// Generated at build time by cmake/GraphprofRevision.cmake: the revision this build is from.
#include \"graphprof/core/version.hpp\"
namespace gp {
const char* const kGitRevision = \"${rev}\";
}  // namespace gp
")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
