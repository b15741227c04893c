# Optional NCCL for the multi-GPU workloads. Sets GRAPHPROF_NCCL_FOUND, GRAPHPROF_NCCL_INCLUDE_DIR,
# GRAPHPROF_NCCL_LIBRARY and GRAPHPROF_NCCL_STATUS (one line for `graphprof info`).
# GRAPHPROF_WITH_NCCL=OFF skips the search.
option(GRAPHPROF_WITH_NCCL "Build the NCCL workloads when NCCL is found" ON)
set(GRAPHPROF_NCCL_FOUND FALSE)
set(GRAPHPROF_NCCL_STATUS "not built: GRAPHPROF_WITH_NCCL=OFF")
if(GRAPHPROF_WITH_NCCL)
  # PyTorch's wheel ships NCCL under site-packages/nvidia/nccl (headers and libnccl.so.2).
  set(_nccl_hints "")
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c
                    "import importlib.util as u; s = u.find_spec('nvidia'); print(';'.join(s.submodule_search_locations) if s else '')"
                    OUTPUT_VARIABLE _nv OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(_d IN LISTS _nv)
      list(APPEND _nccl_hints ${_d}/nccl ${_d}/cu13)
    endforeach()
  endif()
  set(_cuda_roots "")
  if(CUDAToolkit_FOUND)
    list(APPEND _cuda_roots ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR})
  endif()
  find_path(GRAPHPROF_NCCL_INCLUDE_DIR nccl.h
            HINTS $ENV{NCCL_HOME} $ENV{NCCL_ROOT} ${_cuda_roots} ${_nccl_hints} PATH_SUFFIXES include)
  find_library(GRAPHPROF_NCCL_LIBRARY NAMES nccl libnccl.so.2
               HINTS $ENV{NCCL_HOME} $ENV{NCCL_ROOT} ${_cuda_roots} ${_nccl_hints} PATH_SUFFIXES lib lib64)
  if(GRAPHPROF_NCCL_INCLUDE_DIR AND GRAPHPROF_NCCL_LIBRARY)
    file(STRINGS ${GRAPHPROF_NCCL_INCLUDE_DIR}/nccl.h _v REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*NCCL_MINOR ([0-9]+).*NCCL_PATCH ([0-9]+).*" "\\1.\\2.\\3" _ver "${_v}")
    set(GRAPHPROF_NCCL_FOUND TRUE)
    set(GRAPHPROF_NCCL_STATUS "built with NCCL ${_ver} (${GRAPHPROF_NCCL_LIBRARY}): allreduce workload")
    message(STATUS "graphprof: NCCL ${_ver} found: ${GRAPHPROF_NCCL_LIBRARY}")
  else()
    set(GRAPHPROF_NCCL_STATUS "not built: nccl.h or libnccl not found at configure time (set NCCL_HOME); no allreduce workload")
    message(STATUS "graphprof: NCCL not found; the allreduce workload is not built")
  endif()
endif()
