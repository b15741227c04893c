# graphprof profile without a GPU: the no-GPU exit, usage errors, and (with the GPU check skipped,
# GRAPHPROF_PROFILE_NO_GPU_CHECK=1) the handling of the application's process: its output passes
# through, its failing status is recorded while graphprof exits 0, SIGTERM reaches it.
add_test(NAME cli.profile_without_gpu
         COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 4 "^graphprof: no usable CUDA device or driver found .*commands that work without a GPU"
                 -- $<TARGET_FILE:graphprof> profile --out ${CMAKE_CURRENT_BINARY_DIR}/profile_nogpu -- true)
gp_cli_test(profile_no_command 2 "command" profile)
gp_cli_test(profile_help 0 "CUDA_INJECTION64_PATH|injection|--overhead" --stdout profile --help)
add_test(NAME cli.profile_command_not_found
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 2 "cannot start '/nonexistent/app'"
                 -- $<TARGET_FILE:graphprof> profile --out ${CMAKE_CURRENT_BINARY_DIR}/profile_nf -- /nonexistent/app)
foreach(check IN ITEMS "hello from the app" "the application exited with status 3" "no process of the application initialised CUDA")
  string(MAKE_C_IDENTIFIER "${check}" id)
  add_test(NAME cli.profile_failing_app_${id}
           COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                   ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "${check}" --stdout
                   -- $<TARGET_FILE:graphprof> profile --out ${CMAKE_CURRENT_BINARY_DIR}/profile_fail_${id}
                   -- sh -c "echo hello from the app; exit 3")
  set_tests_properties(cli.profile_failing_app_${id} PROPERTIES LABELS cpu)
endforeach()
add_test(NAME cli.profile_sigterm_forwarded
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_signal.sh $<TARGET_FILE:graphprof> ${CMAKE_CURRENT_BINARY_DIR}/profile_sigterm)
set_tests_properties(cli.profile_without_gpu cli.profile_command_not_found cli.profile_sigterm_forwarded PROPERTIES LABELS cpu)
# --overhead N: a warm-up run, then N plain and N profiled runs alternating; the change over the pairs.
add_test(NAME cli.profile_overhead_runs
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "process wall time .*[-+][0-9.]+ % \\.\\. [-+][0-9.]+ %" --stdout
                 -- $<TARGET_FILE:graphprof> profile --overhead 2 --out ${CMAKE_CURRENT_BINARY_DIR}/profile_overhead -- true)
add_test(NAME cli.profile_overhead_bad_count
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 2 "--overhead"
                 -- $<TARGET_FILE:graphprof> profile --overhead 0 --out ${CMAKE_CURRENT_BINARY_DIR}/profile_overhead_bad -- true)
add_test(NAME cli.profile_node_sample_bad
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 2 "--node-sample 5,5: expected 'all' or W,K,M"
                 -- $<TARGET_FILE:graphprof> profile --node-sample 5,5 --out ${CMAKE_CURRENT_BINARY_DIR}/profile_sample_bad -- true)
add_test(NAME cli.profile_call_sites_bad
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 2 "--call-sites.*python.*on.*held.*native.*off"
                 -- $<TARGET_FILE:graphprof> profile --call-sites python --out ${CMAKE_CURRENT_BINARY_DIR}/profile_sites_bad -- true)
set_tests_properties(cli.profile_overhead_bad_count cli.profile_node_sample_bad cli.profile_call_sites_bad PROPERTIES LABELS cpu)
# --overhead N with a command that has options of its own (CLI11 took them for graphprof's).
add_test(NAME cli.profile_overhead_command_options
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "process wall time .*[-+][0-9.]+ % \\.\\. [-+][0-9.]+ %" --stdout
                 -- $<TARGET_FILE:graphprof> profile --overhead 2 --out ${CMAKE_CURRENT_BINARY_DIR}/profile_overhead_opts
                 -- sh -c "exit 0" --steps 10 -v)
set_tests_properties(cli.profile_overhead_runs cli.profile_overhead_command_options PROPERTIES LABELS cpu)
# --overhead N --step-range NAME: plain and profiled runs get the NVTX injection; the window
# compared is the ranges' (the graph's, with a note, when a run had none).
add_test(NAME cli.profile_overhead_step_range
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_overhead_step_range.sh $<TARGET_FILE:graphprof>
                 ${CMAKE_CURRENT_BINARY_DIR}/profile_overhead_step_range)
set_tests_properties(cli.profile_overhead_step_range PROPERTIES LABELS cpu)
# --overhead-windows N: windowed runs, then the profile run recorded throughout; the change from
# the windows; the options it cannot be combined with.
add_test(NAME cli.profile_overhead_windows
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_overhead_windows.sh $<TARGET_FILE:graphprof>
                 ${CMAKE_CURRENT_BINARY_DIR}/profile_overhead_windows)
set_tests_properties(cli.profile_overhead_windows PROPERTIES LABELS cpu)
# An injection library already set: graphprof replaces it for the application and says so at once
# (stderr) and in the summary.
foreach(stream IN ITEMS stderr stdout)
  set(flag)
  if(stream STREQUAL "stdout")
    set(flag --stdout)
  endif()
  add_test(NAME cli.profile_injection_already_set_${stream}
           COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1 CUDA_INJECTION64_PATH=/opt/other/libtool.so
                   ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "CUDA_INJECTION64_PATH was set to /opt/other/libtool.so; CUDA loads one injection library per process, so graphprof replaced it" ${flag}
                   -- $<TARGET_FILE:graphprof> profile --out ${CMAKE_CURRENT_BINARY_DIR}/profile_injection_set_${stream} -- true)
  set_tests_properties(cli.profile_injection_already_set_${stream} PROPERTIES LABELS cpu)
endforeach()
# `profile --json -` / `--trace-out -`: that output alone on stdout; an unwritable --json refused
# before the application runs.
add_test(NAME cli.profile_stdout
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_stdout.sh $<TARGET_FILE:graphprof> ${CMAKE_CURRENT_BINARY_DIR}/profile_stdout)
set_tests_properties(cli.profile_stdout PROPERTIES LABELS cpu)
# The app gate on H200 profiles (`profile --repeat 5` of the serving test application): A/A
# passes, work moved out of the graphs fails on coverage and eager launches per step, a slower
# graph fails on its GPU time per launch (tests/data/profile/gate/README.md).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME cli.profile_gate_verdicts
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_gate.py $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA} ${CMAKE_CURRENT_BINARY_DIR}/profile_gate)
# A profile's report without -o prints its console summary again; --repeat and --overhead do not mix.
gp_cli_test(report_profile_summary 0 "graph coverage: 99.6 % of GPU kernel time" --stdout
            report ${GRAPHPROF_TEST_DATA}/profile/gate/single.json)
gp_cli_test(report_run_without_output 2 "nothing to write" report ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json)
gp_cli_test(profile_repeat_with_overhead 2 "--repeat and --overhead" profile --repeat 3 --overhead -- true)
set_tests_properties(cli.profile_gate_verdicts PROPERTIES LABELS cpu)
# The app gate at the default level on H200 profiles of a vLLM-style loop (tests/data/profile/app_gate):
# A/A at --repeat 3 and 5 passes, an edited and a renamed program pass, slower graphs, an op moved out
# of the graphs and a broken capture fail naming what moved.
add_test(NAME cli.app_gate_verdicts
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/app_gate.py $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA} ${CMAKE_CURRENT_BINARY_DIR}/app_gate)
set_tests_properties(cli.app_gate_verdicts PROPERTIES LABELS cpu)
# --time-limit: profile stops the application (SIGTERM, then SIGKILL), writes the report, exits 4;
# run/sweep refuse --ranks/--processes with a limit.
add_test(NAME cli.time_limit
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/time_limit.sh $<TARGET_FILE:graphprof> ${CMAKE_CURRENT_BINARY_DIR}/time_limit)
set_tests_properties(cli.time_limit PROPERTIES LABELS cpu)
# Record files that cannot be read (dangling link, FIFO, device): the report is still written with
# each one's error; nothing blocks.
add_test(NAME cli.profile_record_files
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_record_files.sh $<TARGET_FILE:graphprof>
                 ${CMAKE_CURRENT_BINARY_DIR}/profile_record_files ${GRAPHPROF_TEST_DATA}/profile/h200/proc-2096.jsonl)
set_tests_properties(cli.profile_record_files PROPERTIES LABELS cpu)
# file:line of native call sites, resolved by `profile` after the run: records with two sites in the
# fixture library (built with and without debug information); the report and the console name the
# first by its source line and say once why the second has none.
add_test(NAME cli.profile_source_lines
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_source_lines.py $<TARGET_FILE:graphprof>
                 ${CMAKE_CURRENT_BINARY_DIR}/profile_source_lines ${GRAPHPROF_TEST_DATA}/profile/h200/proc-2096.jsonl
                 $<TARGET_FILE:graphprof_source_lines_debug> $<TARGET_FILE:graphprof_source_lines_nodebug>
                 ${CMAKE_CURRENT_SOURCE_DIR}/unit/source_lines/source_lines_fixture.cpp)
set_tests_properties(cli.profile_source_lines PROPERTIES LABELS cpu)
# --step-range NAME: a usage error for a name with a control character (an empty one:
# empty_and_nonfinite_options.sh); with a name, the application
# gets the injection library as NVTX's injection too and the name (what the library reads), and an
# NVTX injection already set is replaced and said.
add_test(NAME cli.profile_step_range_control_character
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 2 "--step-range: the name has a control character"
                 -- $<TARGET_FILE:graphprof> profile "--step-range=a\tb" --out ${CMAKE_CURRENT_BINARY_DIR}/profile_step_tab -- true)
add_test(NAME cli.profile_step_range_environment
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "NVTX=/.*libgraphprof_inject\\.so RANGE=decode step" --stdout
                 -- $<TARGET_FILE:graphprof> profile --step-range "decode step" --out ${CMAKE_CURRENT_BINARY_DIR}/profile_step_env
                 -- sh -c "echo NVTX=$NVTX_INJECTION64_PATH RANGE=$GRAPHPROF_PROFILE_STEP_RANGE")
add_test(NAME cli.profile_step_range_nvtx_injection_replaced
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1 NVTX_INJECTION64_PATH=/opt/other/libnvtxtool.so
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "NVTX_INJECTION64_PATH was set to /opt/other/libnvtxtool.so; NVTX loads one injection library per process, so graphprof replaced it"
                 -- $<TARGET_FILE:graphprof> profile --step-range decode --out ${CMAKE_CURRENT_BINARY_DIR}/profile_step_nvtx -- true)
set_tests_properties(cli.profile_step_range_control_character cli.profile_step_range_environment
                     cli.profile_step_range_nvtx_injection_replaced PROPERTIES LABELS cpu)
# --observe interpose: --trace none only (with call sites, sampled); it preloads the interposer
# after the CUPTI watch library and names it in the application's environment.
add_test(NAME cli.profile_observe_needs_trace_none
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 2 "--observe interpose: only with --trace none"
                 -- $<TARGET_FILE:graphprof> profile --trace node --observe interpose --out ${CMAKE_CURRENT_BINARY_DIR}/profile_observe_node -- true)
add_test(NAME cli.profile_observe_with_call_sites
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "observe=interpose sites=1 sample=256,16" --stdout
                 -- $<TARGET_FILE:graphprof> profile --trace none --observe interpose --call-sites on
                    --out ${CMAKE_CURRENT_BINARY_DIR}/profile_observe_sites
                 -- sh -c "echo observe=$GRAPHPROF_PROFILE_OBSERVE sites=$GRAPHPROF_PROFILE_SITES sample=$GRAPHPROF_PROFILE_SITE_SAMPLE")
add_test(NAME cli.profile_site_sample_checked
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 2 "--site-sample 16: expected 'all' or K,M"
                 -- $<TARGET_FILE:graphprof> profile --site-sample 16 --out ${CMAKE_CURRENT_BINARY_DIR}/profile_site_sample_bad -- true)
add_test(NAME cli.profile_observe_preloads_the_interposer
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "libgraphprof_cupti_watch.so [^ ]*libgraphprof_interpose.so observe=interpose" --stdout
                 -- $<TARGET_FILE:graphprof> profile --trace none --observe interpose --out ${CMAKE_CURRENT_BINARY_DIR}/profile_observe_env
                 -- sh -c "echo $LD_PRELOAD observe=$GRAPHPROF_PROFILE_OBSERVE")
# The default (--trace none) interposes (--observe auto) with call sites on; --observe cupti and
# the CUPTI levels do not interpose.
add_test(NAME cli.profile_trace_none_interposes_by_default
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "libgraphprof_interpose.so observe=interpose level=none sites=1" --stdout
                 -- $<TARGET_FILE:graphprof> profile --out ${CMAKE_CURRENT_BINARY_DIR}/profile_observe_auto
                 -- sh -c "echo $LD_PRELOAD observe=$GRAPHPROF_PROFILE_OBSERVE level=$GRAPHPROF_PROFILE_LEVEL sites=$GRAPHPROF_PROFILE_SITES")
add_test(NAME cli.profile_observe_cupti_does_not_interpose
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "^[^ ]*libgraphprof_cupti_watch.so observe=$" --stdout
                 -- $<TARGET_FILE:graphprof> profile --trace none --observe cupti --out ${CMAKE_CURRENT_BINARY_DIR}/profile_observe_cupti
                 -- sh -c "echo $LD_PRELOAD observe=$GRAPHPROF_PROFILE_OBSERVE")
add_test(NAME cli.profile_node_level_does_not_interpose
         COMMAND ${CMAKE_COMMAND} -E env GRAPHPROF_PROFILE_NO_GPU_CHECK=1
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 0 "^[^ ]*libgraphprof_cupti_watch.so observe=$" --stdout
                 -- $<TARGET_FILE:graphprof> profile --trace node --out ${CMAKE_CURRENT_BINARY_DIR}/profile_observe_node_level
                 -- sh -c "echo $LD_PRELOAD observe=$GRAPHPROF_PROFILE_OBSERVE")
set_tests_properties(cli.profile_observe_needs_trace_none cli.profile_observe_with_call_sites cli.profile_site_sample_checked
                     cli.profile_observe_preloads_the_interposer cli.profile_trace_none_interposes_by_default
                     cli.profile_observe_cupti_does_not_interpose cli.profile_node_level_does_not_interpose PROPERTIES LABELS cpu)
# A profile owns its --out folder (a second one there: exit 2) and no output is the program, another
# output or a file in the records folder.
add_test(NAME cli.profile_folder
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_folder.sh $<TARGET_FILE:graphprof> ${CMAKE_CURRENT_BINARY_DIR}/profile_folder)
set_tests_properties(cli.profile_folder PROPERTIES LABELS cpu)
# The application's process group: --time-limit, SIGTERM and its end stop every process of it.
add_test(NAME cli.profile_process_group
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_process_group.sh $<TARGET_FILE:graphprof> ${CMAKE_CURRENT_BINARY_DIR}/profile_process_group)
set_tests_properties(cli.profile_process_group PROPERTIES LABELS cpu)
# `profile --from DIR` reads an earlier profile's records again; the summary comes before the report
# is written, so a report that cannot be written does not lose the analysis.
add_test(NAME cli.profile_from
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_from.sh $<TARGET_FILE:graphprof> ${CMAKE_CURRENT_BINARY_DIR}/profile_from
                 ${GRAPHPROF_TEST_DATA}/profile/h200/proc-2096.jsonl)
set_tests_properties(cli.profile_from PROPERTIES LABELS cpu)
# PyTorch's own reasons: TORCH_LOGS/TORCH_LOGS_OUT set where the program sets neither, read back and
# joined to the steps (the serving loop's H100 records).
add_test(NAME cli.profile_framework_logs
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/profile_framework_logs.sh $<TARGET_FILE:graphprof> ${CMAKE_CURRENT_BINARY_DIR}/profile_framework_logs
                 ${GRAPHPROF_TEST_DATA}/profile/h100/serving_gate_asis/proc-3676.jsonl)
set_tests_properties(cli.profile_framework_logs PROPERTIES LABELS cpu)
# The command line first, the GPU after: an output in a folder that does not exist is exit 2 naming
# the option on any machine, with or without a GPU (it was exit 4 "no usable CUDA device" here).
gp_cli_test(profile_output_checked_before_the_gpu 2 "--json" profile --json /nonexistent-graphprof-folder/x.json -- true)
