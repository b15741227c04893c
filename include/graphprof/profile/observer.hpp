// How graphprof observes a profiled process, and what `--observe` asks for. The spellings are the
// record lines' ("observed" in the process line), the reports' (observed_by) and the command
// line's; src/profile/observer.cpp.
#pragma once
#include <optional>
#include <string>

namespace gp {

// How one process was observed. kCupti: the injection library's CUPTI subscriber (GPU records at
// --trace graph and node); kInterpose: the preloaded interposer at --trace none, no CUPTI call made.
enum class Observer { kCupti, kInterpose };
const char* to_string(Observer o);
// "cupti" | "interpose"; empty for anything else (a record or report read back).
std::optional<Observer> parse_observer(const std::string& s);
// The process line's value; records written before the field existed were CUPTI's.
Observer observer_or_cupti(const std::string& s);

// --observe. kAuto: interposed in each process that calls the shared CUDA runtime, CUPTI in the
// others; kInterpose: the same, asked for (only with --trace none); kCupti: CUPTI always.
enum class ObserveRequest { kAuto, kCupti, kInterpose };
const char* to_string(ObserveRequest r);
// "auto" | "cupti" | "interpose"; false for anything else.
bool observe_request_from_string(const std::string& s, ObserveRequest& out);

}  // namespace gp
