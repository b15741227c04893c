// One way to combine reports of separate runs (processes, CI jobs) of one build on one GPU
// model: `graphprof merge` writes the result, `graphprof compare` pools a folder with it, and
// `run --processes` merges its children with it. The rules (docs/compare.md, "Pooling"):
// - the same file may not be given twice (a run counted twice halves its noise);
// - every report must come from the same GPU model (else Error kUntrusted, exit 5, as compare);
// - every report must come from the same git revision and compute the same output checksum
//   (else Error kUntrusted: these are not runs of one build);
// - one report may list a benchmark once (else Error kBadInput naming the file);
// - every report is of one kind: runs/sweeps, or profiles of one program (else Error kBadInput);
// - a mode that failed in any run is failed in the result, with that run's reason;
// - repetitions are concatenated in the order given; settings.processes adds up, so compare
//   knows how many independent runs are behind each metric.
#pragma once
#include <string>
#include <vector>

#include "graphprof/core/report.hpp"

namespace gp {

Report merge_reports(const std::vector<Report>& reports, const std::vector<std::string>& sources);

// Reads the reports at `paths` (in that order) and refuses a file named twice, under any
// spelling of its path, two files with the same bytes, and the same report under two names
// (the same content written with other spacing): copies of one run (Error kBadInput).
std::vector<Report> read_distinct_reports(const std::vector<std::string>& paths);

// The report files of one side of `compare` or one input of `merge`: a file as it is, a folder's
// *.json files in name order (Error kBadInput when the folder holds none or cannot be listed).
std::vector<std::string> report_files(const std::string& path);

// What a report is, for messages: "a profile of PROGRAM (graphprof profile)", "a sweep report
// (graphprof sweep)" or "a run report (graphprof run)".
std::string report_kind(const Report& r);
// Whether two reports can be pooled or compared: both profiles of one program, or both not profiles.
bool same_kind(const Report& a, const Report& b);

}  // namespace gp
