// The framework's own reasons for running without CUDA graphs, read from its log file: PyTorch
// writes them to the file TORCH_LOGS_OUT names when TORCH_LOGS asks for them (graphprof profile
// sets both in the application's environment where the program does not, docs/profile.md "The
// framework's own reason"). Only the log file is read, never the program's stdout or stderr.
// Host-only, CPU-tested on PyTorch's lines (tests/unit/framework_logs_test.cpp).
#pragma once
#include <cstddef>
#include <istream>
#include <string>
#include <vector>

namespace gp {

// What graphprof asks PyTorch to log: the perf hints (where "skipping cudagraphs due to ..." is
// logged) and CUDA-graph trees' own messages (recording and re-recording), into this file of the
// records folder.
inline constexpr const char* kTorchLogs = "perf_hints,cudagraphs";
inline constexpr const char* kTorchLogFile = "torch-logs.txt";

// One reason as logged.
struct FrameworkLogEntry {
  int pid = 0;            // the logging process (0: the line did not say)
  std::string kind;       // "skip", "re-record" or "partition" (one op split out of the graph)
  std::string reason;     // "mutated inputs (1 instances)"
  std::string file;       // the user code named with it ("Found from"), "" when none
  int line = 0;
  std::string function;
};

struct FrameworkLog {
  std::vector<FrameworkLogEntry> entries;
  std::size_t records = 0;  // log records read (a record: a header line and its continuation lines)
};

// Reads PyTorch's log lines ("W1205 08:45:29.658000 3776 torch/_inductor/cudagraph_utils.py:207] [__cudagraphs] msg";
// each line of a multi-line message repeats that header; lines without one continue the record
// too); lines of any other shape are ignored. PyTorch 2.11 logs the skip under the cudagraphs
// artifact, the distinct sizes re-recorded under perf_hints.
FrameworkLog parse_torch_log(std::istream& in);
// The file, or an empty log when it does not exist or cannot be read.
FrameworkLog read_torch_log(const std::string& path);

}  // namespace gp
