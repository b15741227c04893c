# Tracing: the trace options of `graphprof run`, checked before any GPU work, so these
# run on CPU-only machines too. Included from tests/CMakeLists.txt.
gp_cli_test(trace_in_run_help 0 "--trace-out" --stdout run --help)
gp_cli_test(trace_bad_level 2 "--trace" run --trace=kernel)
gp_cli_test(trace_out_needs_a_trace 2 "--trace-out needs a trace pass" run --trace=none --trace-out x.json)
gp_cli_test(trace_records_need_a_trace 2 "--trace-records needs a trace pass" run --trace=none --trace-records d)
gp_cli_test(trace_out_missing_folder 2 "--trace-out /nonexistent-gp/x.json: folder .* does not exist"
            run --trace-out /nonexistent-gp/x.json)
gp_cli_test(trace_iterations_zero 2 "--trace-iterations" run --trace-iterations 0)
# Tracing adds no new way to fail without a GPU: still the environment exit code.
add_test(NAME cli.trace_run_without_gpu
         COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 4 "no usable CUDA device"
                 -- $<TARGET_FILE:graphprof> run --workload chain --trace=node --trace-out /tmp/gp-trace-cli.json)
set_tests_properties(cli.trace_run_without_gpu PROPERTIES LABELS cpu)

# The CUPTI conversion test builds CUPTI's own record structs inside graphprof_trace_cupti (the one
# cupti.h translation unit), so it links that library; it still needs no GPU.
if(TARGET trace_cupti_conversion_test)
  target_link_libraries(trace_cupti_conversion_test PRIVATE graphprof_trace_cupti)
  # ... and writes the same records through the injection library's line writer (header-only, plus
  # the injection's common part), to check that both writers of cupti_activity.hpp's views agree.
  target_link_libraries(trace_cupti_conversion_test PRIVATE graphprof_inject_common)
  target_include_directories(trace_cupti_conversion_test PRIVATE ${PROJECT_SOURCE_DIR}/src/inject/cupti_inject
                             $<TARGET_PROPERTY:CUDA::cupti,INTERFACE_INCLUDE_DIRECTORIES>)
endif()
