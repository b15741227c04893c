// graphprof profile -- CMD [ARGS...]: its command line (docs/profile.md). The profile itself runs
// in profile_session.cpp.
#include <memory>

#include "commands.hpp"
#include "help_format.hpp"
#include "option_checks.hpp"
#include "profile_session.hpp"

namespace gp::cli {

void setup_profile(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand(
      "profile", "Profile the CUDA graphs of any application, unmodified (needs a GPU): graphprof profile [options] -- CMD [ARGS...]");
  auto o = std::make_shared<ProfileOptions>();
  sub->add_option("--out", o->out, "folder for report.json and the per-process records and DOT dumps")->capture_default_str();
  sub->add_option("--json", o->json, "write the JSON report here instead of OUT/report.json");
  sub->add_option("--trace-out", o->trace_out, "write a Chrome trace-event file of everything recorded (ui.perfetto.dev)");
  // Parsed once into the level; the spellings are the command line's.
  sub->add_option_function<std::string>(
         "--trace", [o](const std::string& level) { trace_level_from_string(level, o->trace); },
                  "what to record: none = graphs, API calls, call sites and memory/start-up ledgers, no GPU records "
                  "(the default: without CUPTI where the process calls the shared libcudart.so, see --observe); graph = + "
                  "one GPU span per graph launch; node = + every kernel, copy and memset of a sample of launches "
                  "(CUPTI costs every graph launch about 0.2 us per node for the whole run)")
      ->check(CLI::IsMember({"none", "graph", "node"}))
      ->default_str(to_string(o->trace));
  sub->add_option("--overhead", o->overhead,
                  "run the application N times plain and N times profiled (default 5), alternating, after a warm-up; "
                  "report the change of its steady-state window, time per step and wall time with 95 % intervals")
      ->expected(0, 1)
      ->default_str("5")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--overhead-windows", o->overhead_windows,
                  "run the application N times (default 3) with recording paused and resumed every --window-ms inside "
                  "each run, then once recorded throughout for the profile; report the change of its time per graph "
                  "launch in recording windows against the paused ones beside them, with a 95 % interval (free of the "
                  "noise between processes; the default --trace none only)")
      ->expected(0, 1)
      ->default_str("3")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--window-ms", o->window_ms,
                  "with --overhead-windows: the length of each window in ms (several steps of the application's loop; "
                  "shorter than the host's slow spells)")
      ->check(CLI::Range(5, 60000))
      ->capture_default_str();
  sub->add_option("--node-sample", o->node_sample,
                  "at --trace node, which launches of each graph are traced node by node: W,K,M[,A/B] = after W warm-up "
                  "launches the next K, then 1 in M, plus everything in a window of A ms every B ms (eager kernels too); "
                  "',kernels=P%' switches CUPTI's kernel activity off between samples (on at most P % of the time; "
                  "',kernels=on' keeps it on); 'all' traces every launch and kernel")
      ->capture_default_str();
  sub->add_flag("--verbose,-v", o->verbose,
                "also print when work starts after each launch call, the eager launch calls, up to 40 graphs, the "
                "slowest nodes, and the eager kernels, copies and synchronising calls by name (always in the report)");
  sub->add_flag("!--no-dot", o->dot, "do not dump the graphs with cuGraphDebugDotPrint");
  sub->add_flag("!--no-framework-logs", o->framework_logs,
                "do not set TORCH_LOGS and TORCH_LOGS_OUT in the application's environment (by default set, where the "
                "program's environment sets neither, so that PyTorch logs why it ran without CUDA graphs into the records folder)");
  sub->add_option("--call-sites", o->call_sites,
                  "where the application made each launch, copy, memset, sync, capture, instantiation and allocation: on = "
                  "native and Python frames (a Python thread that released the GIL has it taken briefly for the read); held "
                  "= Python frames only where the thread holds the GIL; native = no Python frames; off = no call sites")
      ->check(CLI::IsMember({"on", "held", "native", "off"}))
      ->capture_default_str();
  sub->add_option("--site-sample", o->site_sample,
                  "which eager launches, copies, memsets and syncs have their call site taken: K,M = on each thread the "
                  "first K, then 1 in M at random (more rarely on a thread where a stack would cost more than 0.25 % of "
                  "its time), each standing for the calls it was drawn for (per-site counts are then estimates); 'all' = every "
                  "call. Captures, instantiations and allocations: always")
      ->capture_default_str();
  sub->add_option("--step-range", o->step_range,
                  "a step is one occurrence of the NVTX range NAME (push/pop or start/end, any thread, any domain) for "
                  "every per-step figure (default: one launch of the most-launched graph)")
      ->each([o](const std::string&) { o->step_range_given = true; })
      ->option_text("NAME");
  sub->add_option_function<std::string>(
         "--observe", [o](const std::string& how) { observe_request_from_string(how, o->observe); },
                  "how a process is observed at --trace none and in --overhead's plain runs: auto = interposed (LD_PRELOAD: "
                  "the CUDA runtime and driver calls, no CUPTI at all) in each process that calls the shared libcudart.so, "
                  "CUPTI in the others (the report says which, per process); interpose = the same, asked for (only with "
                  "--trace none); cupti = CUPTI always")
      ->check(CLI::IsMember({"auto", "cupti", "interpose"}))
      ->default_str(to_string(o->observe));
  sub->add_option("--repeat", o->repeat,
                  "run the application N times (each run's records in profile-data/run-<k>/); one report keeps every run, "
                  "so `compare` has independent runs to judge")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->add_option("--html", o->html, "also write the profile page (self-contained HTML) here");
  sub->add_option("--time-limit", o->time_limit,
                  "seconds for the application: then it is stopped (SIGTERM, SIGKILL 5 s later), the report of what "
                  "it recorded is written and graphprof exits 4 (not with --overhead)")
      ->check(finite_number())
      ->check(CLI::Range(0.1, 1e7));
  sub->add_option("--from", o->from,
                  "run nothing: analyse the records an earlier profile left in DIR (its --out folder) again and write "
                  "its report (after a report that could not be written, with a newer graphprof, on another machine)");
  sub->add_option("command", o->command, "the application and its arguments, after --");
  // Everything from the first positional on is the command: without it, an option that takes an
  // optional value (--overhead [N]) made CLI11 refuse the command's own options after '--'.
  sub->positionals_at_end();
  help_footer(
      sub,
      "The application's output passes through; graphprof's lines start with 'graphprof' or follow 'profile:'.\n"
      "Exit codes: 0 report written (whatever the application's status, which the report records),\n"
      "            2 usage (checked before the GPU): also an output in a folder that is not there, an output\n"
      "            that is an input or another output, --out another profile is writing into, or a command\n"
      "            that cannot start, 3 --from DIR missing or without records, 4 no GPU/driver, no injection\n"
      "            library, an output that fails while it is written (a full disk), or --time-limit reached\n"
      "            (the report is written first), 6 internal error.",
      {"graphprof profile -- python train.py", "graphprof profile --trace node --out prof -- ./my_app --steps 100",
       "graphprof profile --from prof --json again.json"});
  sub->callback([o, &exit_code] { run_profile(*o, exit_code); });
}

}  // namespace gp::cli
