# graphprof report (HTML/CSV without a GPU), and the option checks of --html/--csv/--trace-events
# that run before any measurement.
gp_cli_test(report_html 0 "HTML report written to" --stdout report ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json
            -o ${CMAKE_CURRENT_BINARY_DIR}/report_cli.html --csv ${CMAKE_CURRENT_BINARY_DIR}/report_cli.csv)
gp_cli_test(report_nothing_to_write 2 "nothing to write" report ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json)
gp_cli_test(report_picture_name 2 "-o x.png: report writes an HTML page. name it .html"
            report ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json -o x.png)
gp_cli_test(report_missing_file 3 "nosuch.json" report nosuch.json -o x.html)
gp_cli_test(report_bad_compare 3 "not a comparison" report ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json
            --compare ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json -o ${CMAKE_CURRENT_BINARY_DIR}/x.html)
gp_cli_test(report_bad_output_folder 2 "/nonexistent-folder/r.html" report ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json
            -o /nonexistent-folder/r.html)
if(GRAPHPROF_WITH_CUDA)
  gp_cli_test(run_html_bad_folder 2 "--html /nonexistent-folder/r.html: folder" run --workload chain
              --html /nonexistent-folder/r.html)
  gp_cli_test(run_csv_bad_folder 2 "--csv /nonexistent-folder/r.csv: folder" run --workload chain
              --csv /nonexistent-folder/r.csv)
  gp_cli_test(run_trace_events_bad 2 "--trace-events lots" run --workload chain --trace-events lots)
endif()
# A profile's report alone: the brief console summary, "what to fix first" first; --verbose: the long form.
add_test(NAME cli.report_profile_brief
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/report_profile_brief.sh $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA}/profile/gate/bad_capture.json)
set_tests_properties(cli.report_profile_brief PROPERTIES LABELS cpu)
