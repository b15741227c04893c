# The real binary, as a user runs it: exit codes and the first words of its messages.
# Registered with gp_cli_test(NAME RC REGEX [--stdout] ARGS...).
function(gp_cli_test name rc regex)
  set(args ${ARGN})
  set(stream)
  if(args AND "${ARGV3}" STREQUAL "--stdout")
    set(stream --stdout)
    list(REMOVE_AT args 0)
  endif()
  add_test(NAME cli.${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh ${rc} ${regex} ${stream} -- $<TARGET_FILE:graphprof> ${args})
  set_tests_properties(cli.${name} PROPERTIES LABELS cpu)
endfunction()

gp_cli_test(version 0 "^graphprof [0-9]+\\.[0-9]+\\.[0-9]+" --stdout --version)
add_test(NAME cli.version_revision COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/version_revision.sh $<TARGET_FILE:graphprof> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.version_revision PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
gp_cli_test(help 0 "run" --stdout --help)
gp_cli_test(no_subcommand 2 "^graphprof: a command is required" )
# CLI11's own messages in graphprof's words: a mistyped command gets a suggestion, every parse error
# the prefix and the subcommand whose --help lists the options.
gp_cli_test(mistyped_command 2 "^graphprof: 'compre' is not a graphprof command. did you mean compare\\?" compre a.json b.json)
gp_cli_test(parse_error_prefix 2 "^graphprof compare: .*--threshold.*\\(graphprof compare --help lists the options\\)"
            compare a.json b.json --threshold fast)
# Every command's --help fits in 100 columns and ends with examples of that command (both builds:
# the CUDA-free build's measuring commands are one line and exit 4).
add_test(NAME cli.help_examples COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/help_examples.sh $<TARGET_FILE:graphprof>)
set_tests_properties(cli.help_examples PROPERTIES LABELS cpu)

if(GRAPHPROF_WITH_CUDA)
  gp_cli_test(run_help 0 "--workload" --stdout run --help)
  gp_cli_test(list 0 "chain" --stdout list)
  gp_cli_test(unknown_option 2 "--frobnicate" run --frobnicate)
  gp_cli_test(bad_mode 2 "--mode fast" run --mode fast)
  gp_cli_test(bad_param_syntax 2 "--param kernels: expected NAME=VALUE" run --param kernels)
  gp_cli_test(unknown_workload 2 "no such workload" run --workload nosuch)
  gp_cli_test(unknown_param 2 "has no parameter 'knl'" run --workload chain --param knl=3)
  gp_cli_test(bad_repetitions 2 "repetitions" run --repetitions 0)

  # The command line is checked before anything looks for a GPU: with every device hidden (so this
  # holds on GPU machines too), a wrong value is exit 2 and one line naming the option, not exit 4.
  function(gp_cli_test_without_gpu name rc regex)
    add_test(NAME cli.${name}
             COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
                     ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh ${rc} ${regex} -- $<TARGET_FILE:graphprof> ${ARGN})
    set_tests_properties(cli.${name} PROPERTIES LABELS cpu)
  endfunction()
  gp_cli_test_without_gpu(run_param_value_before_gpu 2 "^graphprof: --param kernels=abc: expected an integer$"
                          run -p kernels=abc)
  gp_cli_test_without_gpu(run_param_number_before_gpu 2 "^graphprof: --param tolerance=x: expected a number$"
                          run --workload while -p tolerance=x)
  gp_cli_test_without_gpu(run_isolate_param_value_before_gpu 2 "^graphprof: --param kernels=abc: expected an integer$"
                          run --isolate --workload chain -p kernels=abc)
  gp_cli_test_without_gpu(sweep_param_value_before_gpu 2 "^graphprof: --param kernels=abc: expected an integer$"
                          sweep --workload chain -p kernels=1,abc)
  gp_cli_test_without_gpu(sweep_isolate_param_value_before_gpu 2 "^graphprof: --param elements=abc: expected an integer$"
                          sweep --workload chain -p kernels=1,2 -p elements=abc --isolate)
  gp_cli_test_without_gpu(sweep_negative_device_before_gpu 2 "^graphprof sweep: --device"
                          sweep --workload chain -p kernels=1,2 --device -1)
  gp_cli_test_without_gpu(sweep_ranks_processes_before_gpu 2 "^graphprof: --ranks and --processes cannot be combined$"
                          sweep --workload chain -p kernels=1,2 --ranks 2 --processes 2)
  # A 0/1 parameter takes the words get_bool reads (yes, no, true, false, on, off).
  gp_cli_test_without_gpu(run_bool_param_word_reaches_gpu_check 4 "no usable CUDA device" run --workload memcpy -p host_copies=no)

  # No GPU: hide every device (works on GPU machines too) and expect exit 4 with a clear line.
  add_test(NAME cli.run_without_gpu
           COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
                   ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 4 "^graphprof: no usable CUDA device or driver found .*commands that work without a GPU: list"
                   -- $<TARGET_FILE:graphprof> run --workload chain)
  add_test(NAME cli.info_without_gpu
           COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
                   ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 4 "no usable CUDA device" -- $<TARGET_FILE:graphprof> info)
  set_tests_properties(cli.run_without_gpu cli.info_without_gpu PROPERTIES LABELS cpu)
  # `run --json -` / `sweep --json -` keep stdout for the JSON alone (GPU; skips without one).
  add_test(NAME cli.run_json_stdout
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_json_stdout.sh $<TARGET_FILE:graphprof>
                   ${CMAKE_CURRENT_BINARY_DIR}/run_json_stdout)
  set_tests_properties(cli.run_json_stdout PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
  # Without any driver installed the message says so (skips where libcuda.so.1 is installed).
  add_test(NAME cli.no_driver_message
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/no_driver_message.sh $<TARGET_FILE:graphprof>)
  set_tests_properties(cli.no_driver_message PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
  # sweep --isolate: usage errors before anything starts; without a GPU one clear line and exit 4
  # (the parent checks for a device before starting a process per point).
  gp_cli_test(sweep_isolate_ranks 2 "^graphprof: --isolate and --ranks cannot be combined"
              sweep --workload scaling --param length=10,100 --isolate --ranks 2)
  gp_cli_test(sweep_isolate_bad_mode 2 "--mode fast" sweep --workload scaling --param length=10,100 --isolate --mode fast)
  gp_cli_test(sweep_isolate_bad_grid 2 "--param length=" sweep --workload scaling --param length=5:1 --isolate)
  add_test(NAME cli.sweep_isolate_without_gpu
           COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
                   ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 4 "^graphprof: no usable CUDA device or driver found"
                   -- $<TARGET_FILE:graphprof> sweep --workload scaling --mode capture --param length=10,100,1000 --isolate)
  # ... and that line once, not once per point.
  add_test(NAME cli.sweep_isolate_without_gpu_says_it_once
           COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES= bash -c
                   "n=$($<TARGET_FILE:graphprof> sweep --workload scaling --param length=10,100,1000 --isolate 2>&1 >/dev/null | grep -c 'no usable CUDA device'); test \"$n\" = 1")
  set_tests_properties(cli.sweep_isolate_without_gpu cli.sweep_isolate_without_gpu_says_it_once PROPERTIES LABELS cpu)
  # run --isolate (one process per workload): the same, and the plan is checked before the GPU.
  gp_cli_test(run_isolate_ranks 2 "^graphprof: --isolate and --ranks cannot be combined" run --isolate --ranks 2)
  # Two outputs on standard output: exit 2 naming both, before anything is measured (no GPU needed).
  gp_cli_test(run_two_outputs_on_stdout 2 "^graphprof: --trace-out -: --json already writes to standard output"
              run -w chain --json - --trace-out -)
  gp_cli_test(sweep_two_outputs_on_stdout 2 "^graphprof: --csv -: --json already writes to standard output"
              sweep -w chain -p kernels=1,2 --json - --csv -)
  gp_cli_test(run_isolate_bad_mode 2 "--mode fast" run --isolate --mode fast)
  gp_cli_test(run_isolate_unknown_workload 2 "--workload nosuch: no such workload" run --isolate --workload chain,nosuch)
  gp_cli_test(run_isolate_unknown_param 2 "has no parameter 'knl'" run --isolate --workload chain --param knl=3)
  gp_cli_test(run_isolate_trace_out_needs_trace 2 "--trace-out needs a trace pass"
              run --isolate --trace none --trace-out ${CMAKE_CURRENT_BINARY_DIR}/isolate_trace.json)
  gp_cli_test(run_isolate_unwritable_output 2 "--markdown"
              run --isolate --workload chain --markdown /nonexistent-folder/x.md)
  add_test(NAME cli.run_isolate_without_gpu
           COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
                   ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 4 "^graphprof: no usable CUDA device or driver found"
                   -- $<TARGET_FILE:graphprof> run --isolate --workload chain,fork-join --mode capture)
  # The whole default suite: the line once (no process started per workload), no report written.
  add_test(NAME cli.run_isolate_without_gpu_says_it_once
           COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES= bash -c
                   "j=$(mktemp -u); e=$($<TARGET_FILE:graphprof> run --isolate --json $j 2>&1 >/dev/null); rc=$?; n=$(grep -c 'no usable CUDA device' <<<\"$e\"); echo \"rc=$rc n=$n\"; test $rc = 4 && test \"$n\" = 1 && test ! -e $j && test $(grep -c . <<<\"$e\") = 1")
  set_tests_properties(cli.run_isolate_without_gpu cli.run_isolate_without_gpu_says_it_once PROPERTIES LABELS cpu)
else()
  # Built without CUDA: the measuring subcommands exist, and answer one line and exit 4 whatever
  # options they are given.
  foreach(cmd IN ITEMS run sweep profile list info)
    gp_cli_test(${cmd}_without_cuda 4 "^graphprof: ${cmd}: this graphprof was built without CUDA .*Commands of this build: analyze"
                ${cmd} --workload chain --frobnicate -- true)
  endforeach()
  gp_cli_test(help_without_cuda 0 "Built without CUDA: analyze, render, compare, merge, report work" --stdout --help)
endif()

# merge: the same report twice is refused (a run counted twice halves its noise); a missing file is exit 3.
gp_cli_test(merge_twice 3 "chain_run1.json: given twice" merge ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json
            ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json -o ${CMAKE_CURRENT_BINARY_DIR}/merged_twice.json)
gp_cli_test(merge_missing_file 3 "nosuch.json" merge ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json nosuch.json -o x.json)
# merge of the profile reports of two "hosts" (tests/data/profile/ranks/README.md): joined by rank,
# the cross-rank view on stdout; a rank in two reports is refused naming both files.
gp_cli_test(merge_profiles_by_rank 0 "cross-rank view: 2 ranks of world size 2 on 2 hosts" --stdout merge
            ${GRAPHPROF_TEST_DATA}/profile/ranks/two_hosts/node-a.json ${GRAPHPROF_TEST_DATA}/profile/ranks/two_hosts/node-b.json
            -o ${CMAKE_CURRENT_BINARY_DIR}/merged_ranks.json)
gp_cli_test(merge_profiles_duplicate_rank 3 "node-b.json: global rank 1 .host 'node-b'. is also in .*one_gpu_two_ranks.json" merge
            ${GRAPHPROF_TEST_DATA}/profile/ranks/one_gpu_two_ranks.json ${GRAPHPROF_TEST_DATA}/profile/ranks/two_hosts/node-b.json
            -o ${CMAKE_CURRENT_BINARY_DIR}/merged_dup.json)
gp_cli_test(merge_one_report 2 "^graphprof: merge needs at least two reports" merge ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json
            -o ${CMAKE_CURRENT_BINARY_DIR}/merged_one.json)
gp_cli_test(merge_needs_output 2 "^graphprof: merge: -o/--output is required" merge ${GRAPHPROF_TEST_DATA}/gate/A)
# merge DIR merges the folder's reports, as compare DIR pools them.
gp_cli_test(merge_folder 0 "^merged 7 reports \\(27 results\\)" --stdout merge ${GRAPHPROF_TEST_DATA}/gate/A
            -o ${CMAKE_CURRENT_BINARY_DIR}/merged_folder.json)
# Byte-identical copies of one run are one run, not several.
add_test(NAME cli.merge_copies_of_one_run
         COMMAND bash -c "d=$(mktemp -d); cp \"$2\" $d/a.json; cp \"$2\" $d/b.json
           \"$3\" 3 'b.json: the same bytes as .*a.json: a copy of one run' -- \"$1\" merge $d -o $d/m.json; rc=$?
           rm -rf $d; exit $rc" _ $<TARGET_FILE:graphprof> ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json
           ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh)
set_tests_properties(cli.merge_copies_of_one_run PROPERTIES LABELS cpu)

# Every offline example command of README.md and docs/*.md runs as written, against the committed
# fixtures (examples that need a GPU are skipped: tests/cli/doc_examples.sh says which).
add_test(NAME cli.doc_examples COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/doc_examples.sh $<TARGET_FILE:graphprof> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.doc_examples PROPERTIES LABELS cpu)
# A mistyped option gets the option meant, in a command and at the top level (it was "a command is
# required" for --verison).
gp_cli_test(option_typo_suggested 2 "unknown option --jsn. did you mean --json" compare a.json b.json --jsn x.json)
gp_cli_test(top_level_option_typo_suggested 2 "unknown option --verison. did you mean --version" --verison)

# No product file includes across folders by a relative path (tests/cli/no_parent_includes.sh).
add_test(NAME cli.no_parent_includes_in_src COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/no_parent_includes.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.no_parent_includes_in_src PROPERTIES LABELS cpu)
