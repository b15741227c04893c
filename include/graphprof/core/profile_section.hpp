// sections.profile as plain structs: the whole profile of an application (`graphprof profile`,
// docs/profile.md; fields in docs/report-schema.md), which the console, the page and compare read
// as `const ProfileSection&`. A field is a member, so a misspelt one is a compile error, not a "-"
// in a table. The structs of processes[] are in profile_process.hpp, the values they hold
// (ProfileNumber, ProfileText, ProfileList, ...) in profile_values.hpp; this header includes both.
//
// The codec (src/core/profile_section.cpp) reads a report of any schema and writes back exactly
// what it read: a key a struct does not model, or whose value is not of the modelled type (a
// string where an object was expected), stays in that struct's `extra`; numbers keep integer or
// real form; a null number, string, flag or object stays null (its `null()` state); a key that was
// absent stays absent. Readers get the tolerant values the report allows: a missing or null number
// reads as NaN, a string as "", a list as empty, an object as std::nullopt. Host-only.
//
// src/profile fills these structs (Sections::profile); the codec writes them into the report.
// Adding a figure: a member of its struct, here or in profile_process.hpp (and its key in the
// struct's `fields`), set where src/profile fills the struct, read wherever it is shown.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/core/profile_process.hpp"
#include "graphprof/core/profile_values.hpp"

namespace gp {

// cross_rank.ranks[]: one rank of a multi-rank profile.
struct ProfileRankSummary : ProfileRankId {
  ProfileText host;
  ProfileList<ProfileGpu> gpus;
  ProfileList<ProfileNumber> pids, processes;
  ProfileNumber graph_gpu_ns, graph_launches, collective_ns, collective_wait_ns;
  template <class S, class V> static void fields(S& s, V&& v) {
    ProfileRankId::fields(s, v);
    v("host", s.host), v("gpus", s.gpus), v("pids", s.pids), v("processes", s.processes);
    v("graph_gpu_ns", s.graph_gpu_ns), v("graph_launches", s.graph_launches), v("collective_ns", s.collective_ns);
    v("collective_wait_ns", s.collective_wait_ns);
  }
};

// cross_rank.graphs[].ranks[]: the graph on one rank.
struct ProfileRankGraph {
  ProfileNumber rank, process, graph, exec, launches, gpu_per_launch_ns, collective_per_launch_ns, wait_per_launch_ns;
  ProfileNumber outside_collectives_per_launch_ns;
  ProfileText capture_mode;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("rank", s.rank), v("process", s.process), v("graph", s.graph), v("exec", s.exec), v("launches", s.launches);
    v("gpu_per_launch_ns", s.gpu_per_launch_ns), v("collective_per_launch_ns", s.collective_per_launch_ns);
    v("wait_per_launch_ns", s.wait_per_launch_ns);
    v("outside_collectives_per_launch_ns", s.outside_collectives_per_launch_ns), v("capture_mode", s.capture_mode);
  }
};

// cross_rank.graphs[]: one graph matched across the ranks.
struct ProfileCrossRankGraph {
  ProfileText id, signature, call_site, matched_by;
  ProfileNumber nodes, kernels_per_launch, skew, skew_ns, slowest_rank, fastest_rank, busiest_rank, collective_share;
  ProfileList<ProfileNumber> missing_on;
  ProfileList<ProfileRankGraph> ranks;
  ProfileList<ProfileGraphCollective> collectives;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("id", s.id), v("signature", s.signature), v("call_site", s.call_site), v("matched_by", s.matched_by);
    v("nodes", s.nodes), v("kernels_per_launch", s.kernels_per_launch), v("skew", s.skew), v("skew_ns", s.skew_ns);
    v("slowest_rank", s.slowest_rank), v("fastest_rank", s.fastest_rank), v("busiest_rank", s.busiest_rank);
    v("collective_share", s.collective_share), v("missing_on", s.missing_on), v("ranks", s.ranks);
    v("collectives", s.collectives);
  }
};

// cross_rank.trouble[]: a finding across the ranks.
struct ProfileRankTrouble {
  ProfileText kind, detail, hint;
  ProfileList<ProfileNumber> ranks;
  ProfileJson graph;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("kind", s.kind), v("detail", s.detail), v("hint", s.hint), v("ranks", s.ranks), v("graph", s.graph);
  }
};

// cross_rank.collectives[]: a rank's collectives of one kind.
struct ProfileRankCollective {
  ProfileNumber rank, in_graphs, eager, total_ns, wait_ns;
  ProfileText kind;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("rank", s.rank), v("in_graphs", s.in_graphs), v("eager", s.eager), v("total_ns", s.total_ns), v("wait_ns", s.wait_ns);
    v("kind", s.kind);
  }
};

// cross_rank: the ranks of a job side by side (null with one rank).
struct ProfileCrossRank {
  ProfileNumber world_size;
  ProfileList<ProfileText> hosts, notes;
  ProfileList<ProfileNumber> missing_ranks;
  ProfileList<ProfileRankSummary> ranks;
  ProfileList<ProfileCrossRankGraph> graphs;
  ProfileList<ProfileRankTrouble> trouble;
  ProfileList<ProfileRankCollective> collectives;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("world_size", s.world_size), v("hosts", s.hosts), v("notes", s.notes), v("missing_ranks", s.missing_ranks);
    v("ranks", s.ranks), v("graphs", s.graphs), v("trouble", s.trouble), v("collectives", s.collectives);
  }
};

// overhead_runs[]: one plain or profiled run of --overhead.
struct ProfileOverheadRun {
  ProfileFlag profiled;
  ProfileText window, window_end, observed_by, range, graph_window_end;
  ProfileNumber status, wall_ns, window_ns, steps, exec, host_per_step_ns, range_window_ns, graph_window_ns, graph_steps;
  ProfileNumber ranges;  // --step-range: how many NAME ranges
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("profiled", s.profiled), v("status", s.status), v("window", s.window), v("window_end", s.window_end);
    v("observed_by", s.observed_by), v("range", s.range), v("graph_window_end", s.graph_window_end);
    v("wall_ns", s.wall_ns), v("window_ns", s.window_ns), v("steps", s.steps), v("exec", s.exec);
    v("host_per_step_ns", s.host_per_step_ns), v("range_window_ns", s.range_window_ns);
    v("graph_window_ns", s.graph_window_ns), v("graph_steps", s.graph_steps), v("ranges", s.ranges);
  }
};

// overhead_changes[]: profiled against plain, one metric.
struct ProfileOverheadChange {
  ProfileText metric;
  ProfileNumber pairs, change, low, high, level, plain_median_ns, profiled_median_ns;
  ProfileFlag wider_than_effect;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("metric", s.metric), v("pairs", s.pairs), v("change", s.change), v("low", s.low), v("high", s.high);
    v("level", s.level), v("plain_median_ns", s.plain_median_ns), v("profiled_median_ns", s.profiled_median_ns);
    v("wider_than_effect", s.wider_than_effect);
  }
};

// overhead_windows.runs[]: one run of --overhead windows.
struct ProfileOverheadWindowRun {
  ProfileNumber status, wall_ns, processes, windows, compared, change, recording_ns_per_launch, paused_ns_per_launch;
  ProfileNumber through_cupti;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("status", s.status), v("wall_ns", s.wall_ns), v("processes", s.processes), v("windows", s.windows);
    v("compared", s.compared), v("change", s.change), v("recording_ns_per_launch", s.recording_ns_per_launch);
    v("paused_ns_per_launch", s.paused_ns_per_launch), v("through_cupti", s.through_cupti);
  }
};

// overhead_windows: recording switched on and off in windows of one run (--overhead windows).
struct ProfileOverheadWindows {
  ProfileNumber period_ms, start_ms, windows, change, low, high, level, recording_ns_per_launch, paused_ns_per_launch;
  ProfileText clock;
  ProfileFlag inside_noise;
  ProfileList<ProfileOverheadWindowRun> runs;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("period_ms", s.period_ms), v("start_ms", s.start_ms), v("windows", s.windows), v("change", s.change);
    v("low", s.low), v("high", s.high), v("level", s.level), v("recording_ns_per_launch", s.recording_ns_per_launch);
    v("paused_ns_per_launch", s.paused_ns_per_launch), v("clock", s.clock), v("inside_noise", s.inside_noise);
    v("runs", s.runs);
  }
};

// One run of the application: runs[] of `profile --repeat` (or a pooled report), or the section
// itself (ProfileSection derives from it).
struct ProfileAppRun {
  ProfileNumber run, exit_status, wall_ns, warmup_wall_ns;
  ProfileText program, exit, trace_level;
  ProfileList<ProfileProcess> processes;
  nlohmann::json extra = nlohmann::json::object();
  template <class S, class V> static void fields(S& s, V&& v) {
    v("run", s.run), v("exit_status", s.exit_status), v("wall_ns", s.wall_ns), v("warmup_wall_ns", s.warmup_wall_ns);
    v("program", s.program), v("exit", s.exit), v("trace_level", s.trace_level), v("processes", s.processes);
  }
};

// sections.profile.
struct ProfileSection : ProfileAppRun {
  ProfileList<ProfileText> command, notes;
  ProfileList<ProfileText> merged_from;  // graphprof merge of the reports of a job's nodes
  ProfileNumber plain_wall_ns, overhead;
  ProfileList<ProfileNumber> plain_runs_ns;
  ProfileList<ProfileOverheadRun> overhead_runs;
  ProfileList<ProfileOverheadChange> overhead_changes;
  ProfileOptional<ProfileOverheadWindows> overhead_windows;
  ProfileOptional<ProfileCrossRank> cross_rank;
  // runs[] of `profile --repeat` (run, exit, wall time, processes) or of pooled reports (each
  // report's whole section, without runs[]).
  ProfileList<ProfileSection> runs;
  ProfileJson framework_logs;  // core/step_kinds.hpp reads it
  template <class S, class V> static void fields(S& s, V&& v) {
    ProfileAppRun::fields(s, v);
    v("command", s.command), v("notes", s.notes), v("plain_wall_ns", s.plain_wall_ns), v("overhead", s.overhead);
    v("plain_runs_ns", s.plain_runs_ns), v("overhead_runs", s.overhead_runs), v("overhead_changes", s.overhead_changes);
    v("overhead_windows", s.overhead_windows), v("cross_rank", s.cross_rank), v("runs", s.runs);
    v("framework_logs", s.framework_logs), v("merged_from", s.merged_from);
  }
};

// The lines of a list of strings as a reader shows them: a list with elements of other types
// (kept in `extra` under `key`) gives each element's JSON text for those.
std::vector<std::string> text_lines(const ProfileList<ProfileText>& list, const nlohmann::json& extra, const char* key);

// The section from JSON, never throwing: a value of an unexpected type stays in `extra`. An input
// that is not an object gives an empty section whose `extra` is empty too.
ProfileSection profile_section_from_json(const nlohmann::json& j);
// One processes[] entry alone (tests and tools that hold a process's JSON).
ProfileProcess profile_process_from_json(const nlohmann::json& j);
// Exactly the JSON read (to_json(profile_section_from_json(j)) == j for every object j).
nlohmann::json to_json(const ProfileSection& s);
nlohmann::json to_json(const ProfileProcess& p);

}  // namespace gp
