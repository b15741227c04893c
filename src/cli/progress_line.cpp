#include "progress_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "graphprof/core/text_format.hpp"

namespace gp::cli {

namespace {

std::size_t terminal_columns() {
  winsize w{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

}  // namespace

void ProgressLine::show(const std::string& text) {
  if (!terminal_) {
    std::cerr << text << "\n";
    return;
  }
  // One column short of the width: a line that fills it wraps on some terminals, and a wrapped
  // line is not rewritten by the carriage return.
  const std::size_t cols = terminal_columns();
  std::cerr << "\r\033[K" << clip_columns(text, cols > 1 ? cols - 1 : cols) << std::flush;
  shown_ = true;
}

void ProgressLine::keep(const std::string& text) {
  clear();
  std::cerr << text << "\n";
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

ProgressLine& progress_line() {
  static ProgressLine line([] {
    const char* term = std::getenv("TERM");
    return ::isatty(STDERR_FILENO) == 1 && term != nullptr && *term != '\0' && std::strcmp(term, "dumb") != 0;
  }());
  return line;
}

}  // namespace gp::cli
