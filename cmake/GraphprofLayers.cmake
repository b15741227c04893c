# One static library per layer, each seeing only the headers of the layers it links.
#
# The public headers live in include/graphprof/<layer>/. A layer's library does not put include/
# on the include path: it gets a folder of its own, build/layers/<layer>/, holding one link,
# graphprof/<layer> -> include/graphprof/<layer>. Linking a lower layer (PUBLIC) brings that
# layer's folder along, so a layer finds the headers of the layers below it and nothing else: an
# #include of a higher or sideways layer's header is a compile error ("No such file or
# directory"), and so is a call into it (nothing declares it).
include_guard(GLOBAL)

# graphprof_layer(<layer> [DEPENDS <layer>...] [SOURCES <file>...]): target graphprof_<layer>.
function(graphprof_layer layer)
  cmake_parse_arguments(arg "" "" "DEPENDS;SOURCES" ${ARGN})
  set(target graphprof_${layer})
  add_library(${target} STATIC ${arg_SOURCES})
  graphprof_layer_headers(${target} ${layer})
  foreach(dep IN LISTS arg_DEPENDS)
    target_link_libraries(${target} PUBLIC graphprof_${dep})
  endforeach()
  graphprof_warnings(${target})
  graphprof_layer_register(${layer} ${arg_DEPENDS})
endfunction()

# graphprof_reporting_optimisation(<target>...): Release builds compile the C++ of these targets at
# -O2 instead of CMake's -O3: 15-25 % less compile time for the same speed (re-analysing 88,000
# records, report, compare: medians within 1 % or faster; docs/development.md, "Build time"). The
# graph layer keeps -O3 (its analysis of a 100,000-node dump was 20 % slower at -O2), and so do the
# layers that measure (cuda, trace) and the libraries loaded into applications (src/inject).
function(graphprof_reporting_optimisation)
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE $<$<AND:$<CONFIG:Release>,$<COMPILE_LANGUAGE:CXX>>:-O2>)
  endforeach()
endfunction()

# Records library graphprof_<name> and the layers it may use (with theirs) for the symbol check
# (tests/layers/layer_symbols.sh): global property GRAPHPROF_LAYERS, one line per library.
function(graphprof_layer_register name)
  set(uses)
  foreach(dep IN LISTS ARGN)
    get_property(dep_uses GLOBAL PROPERTY GRAPHPROF_LAYER_USES_${dep})
    list(APPEND uses ${dep} ${dep_uses})
  endforeach()
  list(REMOVE_DUPLICATES uses)
  set_property(GLOBAL PROPERTY GRAPHPROF_LAYER_USES_${name} ${uses})
  list(JOIN uses " " uses_text)
  set_property(GLOBAL APPEND_STRING PROPERTY GRAPHPROF_LAYERS "${name} $<TARGET_FILE:graphprof_${name}> ${uses_text}\n")
endfunction()

# The include folder of <layer>'s headers, for <target> (PUBLIC): build/layers/<layer>.
function(graphprof_layer_headers target layer)
  set(root ${PROJECT_BINARY_DIR}/layers/${layer})
  if(NOT IS_SYMLINK ${root}/graphprof/${layer})
    file(MAKE_DIRECTORY ${root}/graphprof)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/graphprof/${layer} ${root}/graphprof/${layer} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
endfunction()
