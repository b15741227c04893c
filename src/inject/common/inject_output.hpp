// The injection library's output: the process's line file ($GRAPHPROF_PROFILE_DIR/proc-<pid>.jsonl)
// and the small text helpers every part of the library writes its lines with. The lines themselves
// are the codec's (src/records/record_lines.hpp). Nothing here throws or prints to stdout.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "record_text.hpp"

namespace gp::inject {

// Opens the line file; false (errno set) when it cannot be created.
bool open_output(const std::string& path);

// Appends finished lines; `flush` pushes them to the file so a killed process leaves them behind.
// The lock is timed: a signal handler or CUPTI's worker never waits forever for an interrupted
// writer. False when the lock was not had in time or no file is open.
bool write_lines(const std::string& lines, bool flush, std::chrono::milliseconds wait = std::chrono::seconds(5));

// The text helpers of the record lines' codec (src/records/record_text.hpp): printf into a
// string, a JSON string literal.
using gp::records::append_json_string;
using gp::records::appendf;

// The process that initialised the library (set once at initialisation). A child made by fork()
// without exec inherits the library's state; it must not write into its parent's records.
void set_profiled_pid(pid_t pid);
pid_t profiled_pid();
bool in_profiled_process();

// Starts a detached thread of the library's own running `fn`, with every signal blocked on it (the
// application's signal handlers keep running on its own threads); false when none can be started.
bool start_quiet_thread(void (*fn)());

// CLOCK_REALTIME in ns: CUPTI's clock on Linux (its records and cuptiGetTimestamp use it).
std::uint64_t realtime_ns();

}  // namespace gp::inject
