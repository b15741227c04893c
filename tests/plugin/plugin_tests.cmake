# Workload plugins (docs/api.md): the example plugins and a plugin without build_graph built in
# this tree, host-only libraries graphprof must refuse, the installed package used from outside.
set(plugin_dir ${CMAKE_CURRENT_SOURCE_DIR}/plugin)

graphprof_add_workload(example_saxpy ${PROJECT_SOURCE_DIR}/examples/saxpy.cu PLUGIN_NAME saxpy VERSION test)
graphprof_add_workload(no_graph_plugin ${plugin_dir}/no_graph.cu VERSION test)

foreach(case 1 2 3 4)
  add_library(bad_plugin_${case} MODULE ${plugin_dir}/bad_plugin.cpp)
  target_include_directories(bad_plugin_${case} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(bad_plugin_${case} PRIVATE BAD_PLUGIN_CASE=${case})
  set_target_properties(bad_plugin_${case} PROPERTIES CXX_VISIBILITY_PRESET hidden)
endforeach()

set(saxpy_so $<TARGET_FILE:example_saxpy>)
gp_cli_test(plugin_list 0 "^    from .*libexample_saxpy.so \\(plugin saxpy test, API 1\\.0\\)$"
            --stdout list --load ${saxpy_so})
gp_cli_test(plugin_list_no_graph 0 "graph mode: not provided" --stdout list --load $<TARGET_FILE:no_graph_plugin>)
gp_cli_test(plugin_param_checked 2 "has no parameter 'knl'" run --load ${saxpy_so} --workload saxpy --param knl=3)
gp_cli_test(plugin_loaded_twice 3 "workload 'saxpy' is already registered" list --load ${saxpy_so} --load ${saxpy_so})
gp_cli_test(plugin_unknown_workload 2 "no such workload" run --load ${saxpy_so} --workload nosuch)
gp_cli_test(plugin_wrong_major 3 "^graphprof: --load .*libbad_plugin_1.so: built for graphprof plugin API 2\\.0, this graphprof reads API 1\\.x"
            list --load $<TARGET_FILE:bad_plugin_1>)
gp_cli_test(plugin_small_table 3 "libbad_plugin_2.so: plugin table of 24/" list --load $<TARGET_FILE:bad_plugin_2>)
gp_cli_test(plugin_null_table 3 "libbad_plugin_3.so: graphprof_plugin\\(\\) returned no plugin table"
            list --load $<TARGET_FILE:bad_plugin_3>)
gp_cli_test(plugin_not_a_plugin 3 "libbad_plugin_4.so: not a graphprof plugin" run --load $<TARGET_FILE:bad_plugin_4>)
gp_cli_test(plugin_text_file 3 "not_a_library.txt: cannot load it as a shared library" sweep --load
            ${plugin_dir}/not_a_library.txt --workload saxpy --param kernels=1,2)
gp_cli_test(plugin_missing_file 3 "--load nosuch.so: no such file" run --load nosuch.so)

# The example plugins in every mode on the GPU: built with the GPU tests (tests/CMakeLists.txt,
# GRAPHPROF_GPU_TESTS); plugin.examples_installed below compiles reduce.cu everywhere.
if(build_gpu_tests)
  graphprof_add_workload(example_reduce ${PROJECT_SOURCE_DIR}/examples/reduce.cu PLUGIN_NAME reduce VERSION test)
  add_test(NAME plugin.run_all_modes
           COMMAND ${plugin_dir}/run_plugins_gpu.sh $<TARGET_FILE:graphprof> ${CMAKE_CURRENT_BINARY_DIR}/plugin_run
                   ${saxpy_so} $<TARGET_FILE:example_reduce> $<TARGET_FILE:no_graph_plugin>)
  set_tests_properties(plugin.run_all_modes PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

add_test(NAME plugin.examples_installed
         COMMAND ${plugin_dir}/examples_install.sh ${CMAKE_COMMAND} ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/examples_installed ${CMAKE_GENERATOR} ${CMAKE_CUDA_COMPILER}
                 ${CMAKE_CXX_COMPILER})
set_tests_properties(plugin.examples_installed PROPERTIES LABELS cpu TIMEOUT 900 COST 45)

# The boundary in-process, host-only (no CUDA call): declarations and error categories cross intact.
add_executable(plugin_loader_test ${CMAKE_CURRENT_SOURCE_DIR}/unit/plugin/plugin_loader_test.cpp)
target_link_libraries(plugin_loader_test PRIVATE graphprof_cuda graphprof_host GTest::gtest_main)
target_compile_definitions(plugin_loader_test PRIVATE GRAPHPROF_SAXPY_PLUGIN="${saxpy_so}")
add_dependencies(plugin_loader_test example_saxpy)
gtest_discover_tests(plugin_loader_test PROPERTIES LABELS cpu DISCOVERY_MODE PRE_TEST)
