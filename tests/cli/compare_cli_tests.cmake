# graphprof compare as CI runs it: exit codes, the line that explains them, and outputs that
# are written even when the gate fails. Inputs are the synthetic reports in data/reports.
set(R ${GRAPHPROF_TEST_DATA}/reports)

gp_cli_test(compare_help 0 "--noise-multiple" --stdout compare --help)
# One file on both sides, or a copy of it: a run compared with itself shows nothing.
gp_cli_test(compare_identical 2 "the baseline and the candidate are the same file" compare -q ${R}/base.json ${R}/base.json)
add_test(NAME cli.compare_copy_of_baseline
         COMMAND bash -c "d=$(mktemp -d); cp \"$2/base.json\" $d/copy.json
           \"$3\" 3 'copy.json: the same bytes as the baseline' -- \"$1\" compare \"$2/base.json\" $d/copy.json; rc=$?
           rm -rf $d; exit $rc" _ $<TARGET_FILE:graphprof> ${R} ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh)
set_tests_properties(cli.compare_copy_of_baseline PROPERTIES LABELS cpu)
# A folder of byte-identical copies of one run is one run, not three.
add_test(NAME cli.compare_folder_of_copies
         COMMAND bash -c "d=$(mktemp -d); for i in 1 2 3; do cp \"$2/base.json\" $d/run$i.json; done
           \"$3\" 3 'run2.json: the same bytes as .*run1.json: a copy of one run' -- \"$1\" compare $d \"$2/regression.json\"; rc=$?
           rm -rf $d; exit $rc" _ $<TARGET_FILE:graphprof> ${R} ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh)
set_tests_properties(cli.compare_folder_of_copies PROPERTIES LABELS cpu)
# A comparison given where a report is expected is named for what it is.
add_test(NAME cli.compare_comparison_as_report
         COMMAND bash -c "d=$(mktemp -d); \"$1\" compare -q --json $d/c.json \"$2/base.json\" \"$2/regression.json\" >/dev/null
           \"$3\" 3 'c.json: \\(document\\): this is a comparison \\(graphprof compare --json\\), not a report' -- \"$1\" compare \"$2/base.json\" $d/c.json; rc=$?
           rm -rf $d; exit $rc" _ $<TARGET_FILE:graphprof> ${R} ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect.sh)
set_tests_properties(cli.compare_comparison_as_report PROPERTIES LABELS cpu)
gp_cli_test(compare_rerun 0 "^PASS \\(exit 0\\)" --stdout compare -q ${R}/base.json ${R}/aa_noise.json)
# +3.1 % of a stable device series: a regression at the default 3 % floor, minor under --threshold 5.
gp_cli_test(compare_small_change 1 "^FAIL \\(exit 1\\): 1 regression" --stdout compare -q ${R}/base.json ${R}/small_change.json)
gp_cli_test(compare_small_change_threshold5 0 "gating: .*1 minor" --stdout compare -q --threshold 5 ${R}/base.json ${R}/small_change.json)
# Noisy device series: each row's threshold is 3 x its runs' spread, shown per row (undecided: not
# shown to be within the 3 % floor); with --noise-multiple 0 every row's threshold is the floor.
gp_cli_test(compare_noise_thresholds 0 "inconclusive +chain\\[~\\]/graph +gpu_time_per_iter .* 1[0-9]\\.[0-9]% \\(3σ\\)" --stdout
            compare --all ${R}/noisy_base.json ${R}/noisy_cand.json)
gp_cli_test(compare_fixed_thresholds 0 "inconclusive +chain\\[~\\]/graph +gpu_time_per_iter .* 3%   7/7" --stdout
            compare --noise-multiple 0 ${R}/noisy_base.json ${R}/noisy_cand.json)
gp_cli_test(compare_bad_noise_multiple 2 "--noise-multiple" compare ${R}/base.json ${R}/regression.json --noise-multiple -1)
gp_cli_test(compare_regression 1 "^FAIL \\(exit 1\\): 1 regression" --stdout compare -q ${R}/base.json ${R}/regression.json)
gp_cli_test(compare_improvements 0 "^PASS \\(exit 0\\).*improvements" --stdout compare -q ${R}/base.json ${R}/improvements.json)
gp_cli_test(compare_large_noise 0 "^PASS \\(exit 0\\).*inconclusive" --stdout compare -q ${R}/noisy_base.json ${R}/noisy_cand.json)
gp_cli_test(compare_outlier_rep 0 "^PASS \\(exit 0\\)" --stdout compare -q ${R}/base.json ${R}/outlier_rep.json)
gp_cli_test(compare_many_regressions 1 "^FAIL \\(exit 1\\): 29[5-9] regressions" --stdout compare -q ${R}/many_base.json ${R}/many_cand.json)
gp_cli_test(compare_missing 5 "^NOT TRUSTWORTHY \\(exit 5\\): 1 missing" --stdout compare -q ${R}/base.json ${R}/missing_added.json)
gp_cli_test(compare_missing_allowed 0 "^PASS \\(exit 0\\)" --stdout compare -q --allow-missing ${R}/base.json ${R}/missing_added.json)
gp_cli_test(compare_other_gpu 5 "gpu.name differs \\(NVIDIA H200 vs NVIDIA A100" --stdout compare -q ${R}/base.json ${R}/other_gpu.json)
gp_cli_test(compare_other_gpu_allowed 0 "warning: gpu.name differs.*compared anyway" --stdout compare --allow-env-mismatch ${R}/base.json ${R}/other_gpu.json)
gp_cli_test(compare_nan_samples 5 "2 metrics with invalid data" --stdout compare -q --gate "*" ${R}/base.json ${R}/nan_samples.json)
gp_cli_test(compare_failed_mode 1 "1 newly failing mode" --stdout compare -q ${R}/base.json ${R}/failed_mode.json)
gp_cli_test(compare_clock_change 5 "clock change: \\+1[0-9]\\.[0-9]% in time but" --stdout compare --verbose ${R}/base.json ${R}/clock_change.json)
gp_cli_test(compare_drift 0 "graph nodes 100 -> 120" --stdout compare ${R}/base.json ${R}/drift.json)
gp_cli_test(compare_drift_fails 1 "structure changes \\(--fail-on-drift\\)" --stdout compare -q --fail-on-drift ${R}/base.json ${R}/drift.json)
gp_cli_test(compare_one_run_gross 1 "is beyond the 3% threshold" --stdout compare --verbose ${R}/r1_base.json ${R}/r1_slow.json)
gp_cli_test(compare_one_run_same 5 "^NOT TRUSTWORTHY \\(exit 5\\): not enough runs" --stdout compare -q ${R}/r1_base.json ${R}/r1_same.json)
gp_cli_test(compare_gate_host_metric 1 "^FAIL \\(exit 1\\): 2 regressions" --stdout compare -q --gate launch_cpu_per_call ${R}/base.json ${R}/regression.json)
gp_cli_test(compare_json_stdout 1 "\"schema\": \"graphprof-compare\"" --stdout compare -q --json - ${R}/base.json ${R}/regression.json)
gp_cli_test(compare_ignore_param 0 "^PASS" --stdout compare -q --ignore-param kernels ${R}/base.json ${R}/aa_noise.json)
# A pattern or parameter name that matches nothing is a typo: exit 2 naming it, not a gate without it.
gp_cli_test(compare_unmatched_gate 2 "--gate launch_cpu_per_cal: 'launch_cpu_per_cal' matches no metric in either report"
            compare ${R}/base.json ${R}/regression.json --gate launch_cpu_per_cal)
gp_cli_test(compare_unmatched_metric_threshold 2 "--metric-threshold nosuch=3: 'nosuch' matches no metric"
            compare ${R}/base.json ${R}/regression.json --metric-threshold nosuch=3)
gp_cli_test(compare_unmatched_abs_floor 2 "--abs-floor chain/eager/nosuch=5: 'chain/eager/nosuch' matches no metric"
            compare ${R}/base.json ${R}/regression.json --abs-floor chain/eager/nosuch=5)
gp_cli_test(compare_unmatched_ignore_param 2 "--ignore-param nope: no result in either report has a parameter 'nope'"
            compare ${R}/base.json ${R}/regression.json --ignore-param nope)

# Unreadable inputs: exit 3 and FILE:LINE:COL.
gp_cli_test(compare_malformed 3 "malformed.json:4:29: invalid JSON" compare ${R}/base.json ${R}/malformed.json)
gp_cli_test(compare_truncated 3 "truncated.json:[0-9]+:[0-9]+: invalid JSON" compare ${R}/truncated.json ${R}/base.json)
gp_cli_test(compare_empty_file 3 "empty.json:1:1: file is empty" compare ${R}/base.json ${R}/empty.json)
gp_cli_test(compare_not_a_report 3 "not_a_report.json: \\(document\\): expected a JSON object" compare ${R}/not_a_report.json ${R}/base.json)
gp_cli_test(compare_no_such_file 3 "nosuch.json" compare ${R}/base.json ${R}/nosuch.json)

# Usage errors: exit 2, naming the option.
gp_cli_test(compare_no_arguments 2 "baseline" compare)
gp_cli_test(compare_bad_metric_threshold 2 "--metric-threshold gpu_time: expected PATTERN=NUMBER" compare ${R}/base.json ${R}/base.json --metric-threshold gpu_time)
gp_cli_test(compare_bad_metric_number 2 "--metric-threshold gpu\\*=fast: 'fast' is not a number" compare ${R}/base.json ${R}/base.json --metric-threshold gpu*=fast)
gp_cli_test(compare_floor_above_threshold 2 "--noise-floor 4.* must be below --threshold 3" compare ${R}/base.json ${R}/base.json --noise-floor 4)
gp_cli_test(compare_tiny_markdown_cap 2 "max-markdown-bytes" compare ${R}/base.json ${R}/base.json --max-markdown-bytes 100)

# Every output is written before a failing exit, and identical inputs give identical bytes.
add_test(NAME cli.compare_outputs_on_failure_and_byte_identical
         COMMAND bash -c "set -u; d=$(mktemp -d); g=\"$1\"; r=\"$2\"
           for i in 1 2; do
             mkdir $d/$i && cd $d/$i || exit 1
             \"$g\" compare \"$r/base.json\" \"$r/regression.json\" --all --markdown out.md --junit out.xml --json out.json > out.txt; rc=$?
             [ $rc = 1 ] || { echo \"exit $rc, expected 1\"; exit 1; }
           done
           for f in md xml json txt; do cmp $d/1/out.$f $d/2/out.$f || exit 1; [ -s $d/1/out.$f ] || { echo \"empty $f\"; exit 1; }; done
           grep -q '^### ❌ graphprof compare: FAIL (exit 1)' $d/1/out.md || { echo 'markdown headline'; exit 1; }
           grep -q '<failure type=\"regression\"' $d/1/out.xml || { echo 'junit failure'; exit 1; }
           grep -q '\"exit_code\": 1' $d/1/out.json || { echo 'json exit code'; exit 1; }
           if grep -q $'\\033' $d/1/out.txt; then echo 'colour in a pipe'; exit 1; fi
           rm -rf $d" _ $<TARGET_FILE:graphprof> ${R})

# Colour only on a terminal, and never with NO_COLOR (script(1) provides the terminal).
add_test(NAME cli.compare_colour_on_tty_only
         COMMAND bash -c "command -v script >/dev/null || exit 77
           out=$(script -qec \"$1 compare $2/base.json $2/regression.json\" /dev/null)
           grep -q $'\\033\\\\[' <<<\"$out\" || { echo 'no colour on a tty'; exit 1; }
           out=$(NO_COLOR=1 script -qec \"$1 compare $2/base.json $2/regression.json\" /dev/null)
           if grep -q $'\\033\\\\[' <<<\"$out\"; then echo 'colour despite NO_COLOR'; exit 1; fi
           out=$(script -qec \"$1 compare --no-color $2/base.json $2/regression.json\" /dev/null)
           if grep -q $'\\033\\\\[' <<<\"$out\"; then echo 'colour despite --no-color'; exit 1; fi
           exit 0" _ $<TARGET_FILE:graphprof> ${R})
set_tests_properties(cli.compare_outputs_on_failure_and_byte_identical cli.compare_colour_on_tty_only
                     PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)

# The CI gate script: it passes the exit code through and leaves the Markdown behind.
add_test(NAME cli.compare_ci_perf_gate_script
         COMMAND bash -c "d=$(mktemp -d)
           GRAPHPROF=\"$1\" \"$2\" \"$3/base.json\" \"$3/regression.json\" \"$d\" > $d/log; rc=$?
           [ $rc = 1 ] || { echo \"exit $rc, expected 1\"; cat $d/log; exit 1; }
           [ -s $d/compare.md ] && [ -s $d/compare.xml ] && [ -s $d/compare.json ] || { echo 'outputs missing'; ls $d; exit 1; }
           GRAPHPROF=\"$1\" GITHUB_STEP_SUMMARY=$d/summary \"$2\" \"$3/base.json\" \"$3/aa_noise.json\" \"$d\" > $d/log; rc=$?
           [ $rc = 0 ] || { echo \"exit $rc, expected 0\"; cat $d/log; exit 1; }
           grep -q 'graphprof compare: PASS' $d/summary || { echo 'no job summary'; exit 1; }
           rm -rf $d" _ $<TARGET_FILE:graphprof> ${PROJECT_SOURCE_DIR}/scripts/ci-perf-gate.sh ${R})
set_tests_properties(cli.compare_ci_perf_gate_script PROPERTIES LABELS cpu)

# One process with five close repetitions is one run: the reruns' scatter gives no false alarm
# ("not enough runs"), and a gross device slowdown still fails.
gp_cli_test(compare_suite_rerun 5 "^NOT TRUSTWORTHY \\(exit 5\\): not enough runs" --stdout compare -q ${R}/suite_a.json ${R}/suite_b.json)
gp_cli_test(compare_suite_slowdown 1 "^FAIL \\(exit 1\\): 2 regressions" --stdout compare -q ${R}/suite_a.json ${R}/suite_slow.json)

# Real H200 runs (tests/data/gate, trimmed): 7 vs 7 interleaved processes of the default suite.
set(G ${GRAPHPROF_TEST_DATA}/gate)
gp_cli_test(compare_h200_aa 0 "^PASS \\(exit 0\\): no regression" --stdout compare -q --ignore-param spin_cycles ${G}/A ${G}/B)
gp_cli_test(compare_h200_spin5 1 "^FAIL \\(exit 1\\): 4 regressions" --stdout compare -q --ignore-param spin_cycles ${G}/A ${G}/S5)
gp_cli_test(compare_h200_spin10 1 "^FAIL \\(exit 1\\): 4 regressions" --stdout compare -q --ignore-param spin_cycles ${G}/A ${G}/S10)
gp_cli_test(compare_h200_single_runs 5 "not enough runs" --stdout compare -q --ignore-param spin_cycles ${G}/A/run1.json ${G}/B/run1.json)

# A side may be a folder of reports from separate runs, pooled; an empty folder is bad input.
# A folder of runs is pooled; a copy of one of them under another name is refused (by content).
add_test(NAME cli.compare_pooled_folders
         COMMAND bash -c "d=$(mktemp -d); r=\"$2\"; mkdir $d/base $d/cand $d/empty
           cp $r/r1_base.json $d/base/1.json; cp $r/r1_slow.json $d/cand/1.json
           sed 's/08:00:00Z/09:00:00Z/' $r/r1_base.json > $d/base/2.json
           sed 's/08:00:00Z/09:00:00Z/' $r/r1_slow.json > $d/cand/2.json
           out=$(\"$1\" compare $d/base $d/cand); rc=$?
           [ $rc = 1 ] || { echo \"exit $rc, expected 1\"; echo \"$out\"; exit 1; }
           grep -q '2 runs, 2 repetitions' <<<\"$out\" || { echo 'no pooling line'; echo \"$out\"; exit 1; }
           cp $r/r1_same.json $d/base/3.json
           \"$1\" compare $d/base $d/cand 2>$d/err; rc=$?
           [ $rc = 5 ] && grep -q 'made by revision r1-rerun' $d/err || { echo \"two builds in one folder: exit $rc\"; cat $d/err; exit 1; }
           rm $d/base/3.json
           cp $r/r1_base.json $d/base/3.json
           \"$1\" compare $d/base $d/cand 2>$d/err; rc=$?
           [ $rc = 3 ] && grep -Eq 'base/3.json: the same (report|bytes) as .*base/1.json' $d/err || { echo \"a copy pooled: exit $rc\"; cat $d/err; exit 1; }
           rm $d/base/3.json
           \"$1\" compare $d/base $d/empty 2>$d/err; rc=$?
           [ $rc = 3 ] && grep -q 'holds no \\*.json report' $d/err || { echo \"empty folder: exit $rc\"; cat $d/err; exit 1; }
           rm -rf $d" _ $<TARGET_FILE:graphprof> ${R})
set_tests_properties(cli.compare_pooled_folders PROPERTIES LABELS cpu)

# scripts/interleave.sh alternates the sides (b c, c b, ...), passes each side its own
# parameters, ignores them when matching, and ends with compare's exit code. A stand-in binary
# replays the real H200 reports (A for spin_cycles=0, S10 for spin_cycles=194).
add_test(NAME cli.interleave_script
         COMMAND bash -c "d=$(mktemp -d); export GRAPHPROF=\"$1\"
           \"$2\" --out $d/x --base-args '-p spin_cycles=0' --cand-args '-p spin_cycles=194' \"$3\" \"$3\" 4 -- -q -w chain \
             > $d/out 2>$d/err; rc=$?
           [ $rc = 1 ] || { echo \"exit $rc, expected 1\"; cat $d/out $d/err; exit 1; }
           grep -q '^FAIL (exit 1): 4 regressions' $d/out || { cat $d/out; exit 1; }
           order=$(cut -d' ' -f1 $d/x/calls.log | tr '\\n' ' ')
           [ \"$order\" = 'A S10 S10 A A S10 S10 A ' ] || { echo \"order: $order\"; exit 1; }
           grep -q -- '-p spin_cycles=194 --json' $d/x/calls.log || { cat $d/x/calls.log; exit 1; }
           [ -s $d/x/compare.md ] && [ -s $d/x/compare.json ] || { echo 'outputs missing'; exit 1; }
           \"$2\" --out $d/x \"$3\" \"$3\" 1 2>$d/err; rc=$?
           [ $rc = 2 ] && grep -q 'already holds reports' $d/err || { echo \"reused folder: exit $rc\"; exit 1; }
           rm -rf $d" _ $<TARGET_FILE:graphprof> ${PROJECT_SOURCE_DIR}/scripts/interleave.sh
           ${GRAPHPROF_TEST_DATA}/gate/fake-graphprof.sh)
set_tests_properties(cli.interleave_script PROPERTIES LABELS cpu)

# Real H200 reports of 2026-11-30 (tests/data/reports/h200_levels, trimmed by tools/trim-report.py):
# the same scaling sweep with --isolate (every device probe ~504 ns/kernel) and in one process, which
# switched to the slow level during its 100-kernel point. No row may read as a regression; exit 5.
add_test(NAME cli.compare_device_levels_h200
         COMMAND bash -c "out=$(\"$1\" compare \"$2/isolated.json\" \"$2/one_process.json\"); rc=$?
           [ $rc = 5 ] || { echo \"exit $rc, expected 5\"; echo \"$out\"; exit 1; }
           echo \"$out\" | grep -q '^regression ' && { echo 'a regression row'; echo \"$out\"; exit 1; }
           echo \"$out\" | grep -q 'while the device switched levels' || { echo \"$out\"; exit 1; }
           exit 0" _ $<TARGET_FILE:graphprof> ${R}/h200_levels)
set_tests_properties(cli.compare_device_levels_h200 PROPERTIES LABELS cpu)
# Two outputs on standard output would be one stream no reader can split: exit 2 naming both.
gp_cli_test(compare_two_outputs_on_stdout 2 "^graphprof: --markdown -: --json already writes to standard output"
            compare ${R}/base.json ${R}/regression.json --json - --markdown -)
gp_cli_test(report_two_outputs_on_stdout 2 "^graphprof: --csv /dev/stdout: -o already writes to standard output"
            report ${R}/base.json -o - --csv /dev/stdout)
