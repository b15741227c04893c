# graphprof analyze / render on the H200 dumps and on bad input.
set(GP_DOT ${GRAPHPROF_TEST_DATA}/dot)
set(GP_GRAPH_CLI ${CMAKE_CURRENT_BINARY_DIR}/graph_cli)
file(MAKE_DIRECTORY ${GP_GRAPH_CLI})
# Bad inputs, made at configure time so that none of them needs committing.
file(WRITE ${GP_GRAPH_CLI}/empty.dot "")
file(WRITE ${GP_GRAPH_CLI}/not_dot.dot "this is not a graph\n")
file(WRITE ${GP_GRAPH_CLI}/plain.dot "digraph G { a -> b; }\n")
file(READ ${GP_DOT}/while_capture_verbose.dot truncated LIMIT 700)
file(WRITE ${GP_GRAPH_CLI}/truncated.dot "${truncated}")

gp_cli_test(analyze_fork_join 0 "66 nodes, 73 edges .*verbose" --stdout analyze ${GP_DOT}/fork-join_capture_verbose.dot)
gp_cli_test(analyze_findings 0 "\\[warning\\] Host nodes stall the GPU" --stdout analyze ${GP_DOT}/host_graph.dot)
gp_cli_test(analyze_json_stdout 0 "\"schema\": \"graphprof.graph-analysis/1\"" --stdout
            analyze ${GP_DOT}/while_graph.dot --json -)
gp_cli_test(analyze_empty 3 "^graphprof: .*empty.dot: file is empty" analyze ${GP_GRAPH_CLI}/empty.dot)
gp_cli_test(analyze_not_dot 3 "^graphprof: .*not_dot.dot: not valid DOT" analyze ${GP_GRAPH_CLI}/not_dot.dot)
gp_cli_test(analyze_truncated 3 "^graphprof: .*truncated.dot: not valid DOT" analyze ${GP_GRAPH_CLI}/truncated.dot)
gp_cli_test(analyze_not_cuda 3 "^graphprof: .*plain.dot: not a CUDA graph dump" analyze ${GP_GRAPH_CLI}/plain.dot)
gp_cli_test(analyze_missing_file 3 "^graphprof: /nonexistent.dot: cannot open" analyze /nonexistent.dot)
gp_cli_test(analyze_no_file 2 "dot is required" analyze)
gp_cli_test(analyze_workload_without_report 2 "there is no --report"
            analyze ${GP_DOT}/chain100_capture.dot --workload chain)
# A real H200 report: its result dumped files with other names, and it has no per-node times yet.
gp_cli_test(analyze_report_no_match 2 "no result dumped chain100_capture.dot.*--workload and --mode"
            analyze ${GP_DOT}/chain100_capture.dot --report ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json)
gp_cli_test(analyze_report_no_times 3 "has no per-node times"
            analyze ${GP_DOT}/chain100_capture.dot --report ${GRAPHPROF_TEST_DATA}/h200/chain_run1.json
            --workload chain --mode capture)

gp_cli_test(render_png 0 "wrote .*fj.png \\(png, [0-9]+ bytes\\): 66 nodes drawn as 66 boxes" --stdout
            render ${GP_DOT}/fork-join_graph_verbose.dot -o ${GP_GRAPH_CLI}/fj.png)
gp_cli_test(render_svg_folded 0 "100 nodes drawn as 1 box \\(folded\\)" --stdout
            render ${GP_DOT}/chain100_graph_verbose.dot -o ${GP_GRAPH_CLI}/chain.svg)
gp_cli_test(render_no_collapse 0 "100 nodes drawn as 100 boxes" --stdout
            render ${GP_DOT}/chain100_graph.dot -o ${GP_GRAPH_CLI}/chain_all.svg --no-collapse)
gp_cli_test(render_bad_format 2 "out.jpeg: cannot tell the format" render ${GP_DOT}/while_graph.dot -o out.jpeg)
gp_cli_test(render_both_collapse 2 "contradict" render ${GP_DOT}/while_graph.dot -o x.png --collapse --no-collapse)
gp_cli_test(render_bad_input 3 "empty.dot: file is empty" render ${GP_GRAPH_CLI}/empty.dot -o ${GP_GRAPH_CLI}/e.png)
gp_cli_test(render_needs_output 2 "^graphprof: render: -o/--output is required: the picture to write" render ${GP_DOT}/while_graph.dot)

# Graphviz without its plugin registry: a clear environment error (exit 4), no picture.
add_test(NAME cli.render_without_graphviz_plugins
         COMMAND ${CMAKE_COMMAND} -E env GVBINDIR=${GP_GRAPH_CLI}/no_plugins_here
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh 4 "^graphprof: Graphviz has no 'dot' layout plugin.*dot -c"
                 -- $<TARGET_FILE:graphprof> render ${GP_DOT}/while_graph.dot -o ${GP_GRAPH_CLI}/none.png)
# --json FILE writes the analysis atomically next to the text.
add_test(NAME cli.analyze_json_file
         COMMAND bash -c "rm -f \"$1\" && \"$0\" analyze \"$2\" --json \"$1\" >/dev/null && grep -q '\"max_parallelism\": 8' \"$1\""
                 $<TARGET_FILE:graphprof> ${GP_GRAPH_CLI}/fj.json ${GP_DOT}/fork-join_graph.dot)
set_tests_properties(cli.render_without_graphviz_plugins cli.analyze_json_file PROPERTIES LABELS cpu)

# Hostile dumps: exit 3 with the file and what is wrong, never 6 or a signal; made by
# tests/cli/hostile_dots.sh in the build folder.
set(GP_HOSTILE ${GP_GRAPH_CLI}/hostile)
add_test(NAME cli.graph_hostile_dumps
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/hostile_dots.sh $<TARGET_FILE:graphprof> ${GP_HOSTILE})
# A dense dump (the bench shape, small): links implied by longer paths are left out, and said.
add_test(NAME cli.render_dense_says_what_it_simplified
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/hostile_dots.sh $<TARGET_FILE:graphprof> ${GP_HOSTILE} dense)
set_tests_properties(cli.graph_hostile_dumps cli.render_dense_says_what_it_simplified
                     PROPERTIES LABELS cpu)

# What a new user brings (non-ASCII kernel names, dangling edges, unwritable outputs, one timed
# node): tests/cli/offline_edge_cases.sh.
add_test(NAME cli.offline_edge_cases
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/offline_edge_cases.sh $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA} ${GP_GRAPH_CLI}/edge_cases)
set_tests_properties(cli.offline_edge_cases PROPERTIES LABELS cpu)

# Empty option values, nan/inf numbers and a --dot-dir that is not there: exit 2 or 3 naming the
# option (tests/cli/empty_and_nonfinite_options.sh).
add_test(NAME cli.empty_and_nonfinite_options
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/empty_and_nonfinite_options.sh $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA} ${GP_GRAPH_CLI}/empty_options)
set_tests_properties(cli.empty_and_nonfinite_options PROPERTIES LABELS cpu)
# Dumps that folding alone does not shrink (many graphs, nested child graphs) render bounded, their
# warnings summarised; a failed layout is exit 3 naming the dump.
add_test(NAME cli.render_bounds
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/render_bounds.sh $<TARGET_FILE:graphprof>
                 ${GRAPHPROF_TEST_DATA}/dot/fork-join_graph_verbose.dot)
set_tests_properties(cli.render_bounds PROPERTIES LABELS cpu TIMEOUT 1500 COST 20)
# A Graphviz whose text-layout plugin (cairo/pango) aborts: `render -o x.svg` and the HTML page
# draw the graphs through Graphviz's core SVG renderer instead of showing its error.
add_library(graphprof_crashing_text_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/support/crashing_text_plugin.cpp)
target_link_libraries(graphprof_crashing_text_plugin PRIVATE PkgConfig::GRAPHVIZ)
add_test(NAME cli.graphviz_core_fallback
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/graphviz_core_fallback.sh $<TARGET_FILE:graphprof>
                 $<TARGET_FILE:graphprof_crashing_text_plugin> ${GP_GRAPH_CLI}/core_fallback
                 ${GRAPHPROF_TEST_DATA}/h200/traced_run.json ${GRAPHPROF_TEST_DATA}/h200/traced_dot)
set_tests_properties(cli.graphviz_core_fallback PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
