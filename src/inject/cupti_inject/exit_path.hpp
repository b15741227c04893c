// The injection library's end of process: the ownership check of its CUPTI session, the final
// flush on a thread of its own with a bounded wait, the end line, and SIGINT/SIGTERM where the
// application left their default action (docs/profile.md, "How it works").
#pragma once
#include <string>

namespace gp::inject {

// A remark of graphprof's about this process: in the records (the report's "warnings") and on
// stderr, marked as graphprof's.
void warn(const std::string& what);

// The exit handler (registered with on_exit, which passes the status the application gave exit()):
// the final flush on a thread of its own, with a bounded wait, and the end line.
void at_exit(int status, void*);

// SIGINT and SIGTERM, where the application left their default action: the records are flushed
// and the end line written before the signal ends the process.
void install_signal_handlers();

}  // namespace gp::inject
