# Reliability: outputs checked before measuring (exit 2 naming option and path), hostile report
# files (exit 3 naming the file), and an offline binary that starts without CUPTI.
if(GRAPHPROF_WITH_CUDA)
  gp_cli_test(run_json_missing_folder 2 "^graphprof: --json /nonexistent-gp/r.json: folder /nonexistent-gp does not exist"
              run --workload chain --json /nonexistent-gp/r.json)
  gp_cli_test(run_markdown_is_folder 2 "^graphprof: --markdown /tmp: is a folder" run --workload chain --markdown /tmp)
  gp_cli_test(run_out_under_file 2 "^graphprof: --out /etc/hostname/x: " run --workload chain --out /etc/hostname/x)
  gp_cli_test(sweep_json_missing_folder 2 "^graphprof: --json /nonexistent-gp/s.json: folder"
              sweep --workload chain --param kernels=1,2 --json /nonexistent-gp/s.json)
endif()
gp_cli_test(compare_json_missing_folder 2 "/nonexistent-gp/c.json"
            compare ${GRAPHPROF_TEST_DATA}/reports/r1_base.json ${GRAPHPROF_TEST_DATA}/reports/r1_same.json
            --json /nonexistent-gp/c.json)

add_test(NAME cli.hostile_reports
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/hostile_reports.sh $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA}/reports/r1_base.json ${GRAPHPROF_TEST_DATA}/dot/chain100_capture.dot)
set_tests_properties(cli.hostile_reports PROPERTIES LABELS cpu)

add_test(NAME cli.starts_without_cuda_libraries COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/needed_libraries.sh $<TARGET_FILE:graphprof>)
set_tests_properties(cli.starts_without_cuda_libraries PROPERTIES LABELS cpu)

if(GRAPHPROF_WITH_CUDA)
  # CUPTI loading needs graphprof_cuda but no GPU (it never gets as far as a CUDA call).
  add_executable(cuda_host_test ${CMAKE_CURRENT_SOURCE_DIR}/unit/cuda/cuda_host_test.cpp)
  target_link_libraries(cuda_host_test PRIVATE graphprof_cuda graphprof_host GTest::gtest_main)
  gtest_discover_tests(cuda_host_test PROPERTIES LABELS cpu DISCOVERY_MODE PRE_TEST)
endif()

# Inputs that are not regular files (exit 3 at once), '-' as standard input, stdout on /dev/full (exit 4).
add_test(NAME cli.hostile_files
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/hostile_files.sh $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA}/reports/r1_base.json ${GRAPHPROF_TEST_DATA}/dot/chain100_capture.dot)
set_tests_properties(cli.hostile_files PROPERTIES LABELS cpu)

# No output replaces an input or another output (the same file, also through a link): exit 2 naming both.
add_test(NAME cli.outputs_apart
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/outputs_apart.sh $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA}/reports/r1_base.json ${GRAPHPROF_TEST_DATA}/dot/chain100_capture.dot)
set_tests_properties(cli.outputs_apart PROPERTIES LABELS cpu)

# Hand-edited profile reports (fields of other shapes, a huge timeline bin) read by `report`: exit 0
# or 3 naming the file and the field, within a minute.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME cli.hostile_profiles
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/hostile_profiles.py $<TARGET_FILE:graphprof>
                   ${GRAPHPROF_TEST_DATA}/profile/gate/moved.json)
  set_tests_properties(cli.hostile_profiles PROPERTIES LABELS cpu)
endif()

# Bytes that are not UTF-8 in paths and arguments: the usual answer, valid UTF-8 JSON, never exit 6.
if(GRAPHPROF_WITH_CUDA)
  set(odd_bytes_profile profile)
endif()
add_test(NAME cli.odd_bytes
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/odd_bytes.sh $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA}/reports/r1_base.json ${GRAPHPROF_TEST_DATA}/dot/chain100_capture.dot ${odd_bytes_profile})
set_tests_properties(cli.odd_bytes PROPERTIES LABELS cpu)
if(GRAPHPROF_WITH_CUDA)
  # run and sweep: two outputs that are one file, before anything is measured (no GPU needed).
  gp_cli_test(run_outputs_apart 2 "^graphprof: --markdown .*/run_apart.out: the same file as --json .*/run_apart.out"
              run --workload chain --json ${CMAKE_CURRENT_BINARY_DIR}/run_apart.out --markdown ${CMAKE_CURRENT_BINARY_DIR}/./run_apart.out)
  gp_cli_test(sweep_outputs_apart 2 "^graphprof: --csv .*/sweep_apart.out: the same file as --html .*/sweep_apart.out"
              sweep --workload chain --param kernels=1,2 --html ${CMAKE_CURRENT_BINARY_DIR}/sweep_apart.out --csv ${CMAKE_CURRENT_BINARY_DIR}/sweep_apart.out)
endif()
