// Progress while `run` and `sweep` measure, on stderr. On a terminal it is one line rewritten in
// place (cut to the terminal's width), so that what stays on the screen is the answer, not a list
// of what was done; anywhere else (a log, a pipe, CI) every step is a line of its own, as it
// happened. Lines that must stay (a failed process) are kept on a terminal too.
#pragma once
#include <string>

namespace gp::cli {

class ProgressLine {
 public:
  // `terminal`: rewrite in place (stderr is a terminal that understands it); else one line each.
  explicit ProgressLine(bool terminal) : terminal_(terminal) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void show(const std::string& text);  // replaced by the next show()/keep()/clear() on a terminal
  void keep(const std::string& text);  // stays on the screen
  void clear();                        // before anything else is written to the terminal

 private:
  bool terminal_;
  bool shown_ = false;
};

// The process's progress line: a terminal when stderr is one and TERM is set and not "dumb".
ProgressLine& progress_line();

}  // namespace gp::cli
