# cmake --install: the graphprof binary, the public headers and a CMake package
# (graphprofConfig.cmake, its version file and targets) for building workload plugins outside
# this tree: find_package(graphprof CONFIG REQUIRED) + graphprof_add_workload(mywork mywork.cu).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(GRAPHPROF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/graphprof)
set(GRAPHPROF_PLUGIN_SOURCE_DIR ${CMAKE_INSTALL_DATADIR}/graphprof/plugin-src)

# The installed binary finds libraries outside the system folders (CUPTI) where it was linked.
set_target_properties(graphprof PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
if(NOT GRAPHPROF_WITH_CUDA)
  # A build without CUDA has no workload API to offer: the binary (offline commands) only.
  install(TARGETS graphprof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  return()
endif()
install(TARGETS graphprof graphprof_workload EXPORT graphprofTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The place for the CUPTI injection library: `graphprof profile` looks for it
# next to the binary, so e.g.
#   install(TARGETS graphprof_inject LIBRARY DESTINATION ${CMAKE_INSTALL_BINDIR})
# (and GRAPHPROF_INJECT_LIBRARY in cmake/graphprofConfig.cmake.in).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/graphprof DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${GRAPHPROF_PLUGIN_SUPPORT_SOURCES} DESTINATION ${GRAPHPROF_PLUGIN_SOURCE_DIR})
install(EXPORT graphprofTargets NAMESPACE graphprof:: DESTINATION ${GRAPHPROF_CMAKE_DIR})

set(GRAPHPROF_INSTALLED_PLUGIN_SOURCES)
foreach(src IN LISTS GRAPHPROF_PLUGIN_SUPPORT_SOURCES)
  get_filename_component(name ${src} NAME)
  string(APPEND GRAPHPROF_INSTALLED_PLUGIN_SOURCES "\n  \"\${PACKAGE_PREFIX_DIR}/${GRAPHPROF_PLUGIN_SOURCE_DIR}/${name}\"")
endforeach()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/graphprofConfig.cmake.in
  ${PROJECT_BINARY_DIR}/graphprofConfig.cmake
  INSTALL_DESTINATION ${GRAPHPROF_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR)
# The plugin API's major version is what must match; the package's own version follows the tool.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/graphprofConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/graphprofConfig.cmake ${PROJECT_BINARY_DIR}/graphprofConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/GraphprofPlugin.cmake
        DESTINATION ${GRAPHPROF_CMAKE_DIR})
