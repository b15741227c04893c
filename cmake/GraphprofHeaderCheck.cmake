# Every public header compiles on its own: for each include/graphprof/<layer>/<name>, a generated
# source file that includes only that header is compiled against that layer's library alone
# (graphprof_header_check_<layer>, part of the default build). A header that leans on an include
# its user happened to make first, or on a header of a layer its own does not link, fails here.
include_guard(GLOBAL)

function(graphprof_header_check layer)
  set(target graphprof_${layer})
  if(layer STREQUAL "trace" AND TARGET graphprof_trace_cupti)
    set(target graphprof_trace_cupti)  # cupti_session.hpp's users link the CUPTI side
  endif()
  file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/include
       ${PROJECT_SOURCE_DIR}/include/graphprof/${layer}/*.hpp ${PROJECT_SOURCE_DIR}/include/graphprof/${layer}/*.h)
  set(sources)
  foreach(h IN LISTS headers)
    string(MAKE_C_IDENTIFIER ${h} id)
    set(src ${PROJECT_BINARY_DIR}/header_check/${id}.cpp)
    set(text "#include \"${h}\"  // alone: the header must compile by itself\n")
    if(EXISTS ${src})
      file(READ ${src} old)
    endif()
    if(NOT old STREQUAL text)
      file(WRITE ${src} "${text}")
    endif()
    list(APPEND sources ${src})
  endforeach()
  add_library(graphprof_header_check_${layer} OBJECT ${sources})
  # One header per translation unit, always: a unity batch would let one header lean on another.
  set_target_properties(graphprof_header_check_${layer} PROPERTIES UNITY_BUILD OFF)
  target_link_libraries(graphprof_header_check_${layer} PRIVATE ${target})
  graphprof_warnings(graphprof_header_check_${layer})
endfunction()

foreach(layer core trace graph compare profile report)
  graphprof_header_check(${layer})
endforeach()
if(GRAPHPROF_WITH_CUDA)
  graphprof_header_check(cuda)
endif()
