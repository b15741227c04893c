// PyTorch's reasons for running without CUDA graphs, from its log file (framework_logs.hpp).
#include "graphprof/profile/framework_logs.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>

namespace gp {

namespace {

bool digits(const std::string& s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// A record's first line: "[rank0]:" (optional), a level letter, MMDD, " HH:MM:SS.ffffff ", the
// process id, " ", the logging file:line and "] ". Sets `pid` and where the message begins.
bool header(const std::string& line, int& pid, std::size_t& message) {
  std::size_t i = 0;
  if (line.rfind("[rank", 0) == 0) {
    const std::size_t close = line.find("]:");
    if (close == std::string::npos || close > 16) return false;
    i = close + 2;
  }
  if (i >= line.size() || std::string("VDIWEC").find(line[i]) == std::string::npos) return false;
  ++i;
  if (!digits(line, i, 4) || i + 4 >= line.size() || line[i + 4] != ' ') return false;
  i += 5;
  if (!digits(line, i, 2) || line.compare(i + 2, 1, ":") != 0 || !digits(line, i + 3, 2) || line.compare(i + 5, 1, ":") != 0 ||
      !digits(line, i + 6, 2))
    return false;
  i += 8;
  while (i < line.size() && (line[i] == '.' || std::isdigit(static_cast<unsigned char>(line[i])))) ++i;
  if (i >= line.size() || line[i] != ' ') return false;
  ++i;
  const std::size_t pid_at = i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == pid_at || i >= line.size() || line[i] != ' ' || i - pid_at > 9) return false;
  pid = std::atoi(line.c_str() + pid_at);
  const std::size_t close = line.find("] ", i);
  if (close == std::string::npos) return false;
  message = close + 2;
  return true;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t a = 0;
  while (a < s.size() && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  return s.substr(a);
}

// The message without its "[0/0] [__perf_hints] " prefixes.
std::string message_text(const std::string& line, std::size_t at) {
  while (at < line.size() && line[at] == '[') {
    const std::size_t close = line.find("] ", at);
    if (close == std::string::npos) break;
    at = close + 2;
  }
  return line.substr(at);
}

// `  File "/app/compile_skip.py", line 21, in step`: the last such line of a record is the
// innermost frame of the user code the framework names.
bool frame_line(const std::string& line, FrameworkLogEntry& e) {
  const std::size_t f = line.find("File \"");
  if (f == std::string::npos) return false;
  const std::size_t q = line.find('"', f + 6);
  if (q == std::string::npos) return false;
  const std::size_t l = line.find(", line ", q);
  if (l == std::string::npos) return false;
  const int n = std::atoi(line.c_str() + l + 7);
  if (n <= 0) return false;
  e.file = line.substr(f + 6, q - f - 6);
  e.line = n;
  const std::size_t in = line.find(", in ", l);
  e.function = in == std::string::npos ? std::string() : trim(line.substr(in + 5));
  return true;
}

// One record (its lines) -> a reason, when it gives one.
void read_record(const std::vector<std::string>& lines, int pid, const std::string& first, FrameworkLog& log) {
  FrameworkLogEntry e;
  e.pid = pid;
  static const std::string kSkip = "skipping cudagraphs due to ";
  const std::size_t skip = first.find(kSkip);
  if (skip != std::string::npos) {
    e.kind = "skip";
    std::string reason = first.substr(skip + kSkip.size());
    const std::size_t found = reason.find("Found from");
    if (found != std::string::npos) reason = reason.substr(0, found);
    reason = trim(reason);
    while (!reason.empty() && (reason.back() == '.' || reason.back() == ':')) reason.pop_back();
    e.reason = trim(reason);
  } else if (const std::size_t r = first.find("reason="); r != std::string::npos && first.find(": reason=") != std::string::npos &&
             trim(first).rfind("op", 0) == 0) {
    // Inductor's graph partitions (PyTorch 2.11): an op that cannot be captured is split out of the
    // CUDA graph into a partition that runs eagerly; the log names each such op and its reason,
    // "op1: reason=cpu ops, ir=ComputedBuffer, fx=aten.add.Tensor(arg2_1, 1)", and the next
    // record the user code ("File ..., line 49, in update_cache").
    e.kind = "partition";
    const std::size_t end = first.find(", ir=", r);
    std::string reason = trim(first.substr(r + 7, end == std::string::npos ? std::string::npos : end - r - 7));
    const std::size_t fx = first.find("fx=", r);
    if (fx != std::string::npos) {
      const std::string op = trim(first.substr(fx + 3, first.find('(', fx) == std::string::npos ? std::string::npos : first.find('(', fx) - fx - 3));
      if (!op.empty()) reason += " (" + op + ")";
    }
    e.reason = reason;
  } else if (trim(first).rfind("File \"", 0) == 0) {
    // The code of the op named just before (a record of its own: another logging line).
    if (log.entries.empty() || log.entries.back().kind != "partition" || !log.entries.back().file.empty() ||
        log.entries.back().pid != pid)
      return;
    for (const std::string& l : lines) frame_line(l, log.entries.back());
    return;
  } else {
    // CUDA-graph trees record a new graph for each new input size; their perf hint counts them
    // ("... We have observed 9 distinct sizes ...").
    const std::size_t sizes = first.find("distinct sizes");
    const std::size_t observed = first.rfind("observed ", sizes);
    if (sizes == std::string::npos || observed == std::string::npos) return;
    e.kind = "re-record";
    e.reason = "a new graph for each new input size: " + trim(first.substr(observed + 9, sizes + 14 - observed - 9));
  }
  for (const std::string& l : lines) {
    FrameworkLogEntry at = e;
    if (frame_line(l, at)) e = at;
  }
  log.entries.push_back(std::move(e));
}

}  // namespace

FrameworkLog parse_torch_log(std::istream& in) {
  FrameworkLog log;
  std::vector<std::string> lines;  // the current record's continuation lines
  std::string first, prefix;       // its first line's message, and its header (what a continuation repeats)
  int pid = 0;
  bool open = false;
  auto close = [&]() {
    if (open) read_record(lines, pid, first, log);
    lines.clear();
    open = false;
  };
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    int p = 0;
    std::size_t message = 0;
    if (header(line, p, message)) {
      // PyTorch's formatter repeats the header on every line of a multi-line message (the same
      // level, time, process and logging file:line): such a line goes on the record.
      if (open && line.compare(0, message, prefix) == 0 && line.find("skipping cudagraphs due to ", message) == std::string::npos) {
        if (lines.size() < 200) lines.push_back(message_text(line, message));
        continue;
      }
      close();
      ++log.records;
      open = true;
      pid = p;
      prefix = line.substr(0, message);
      first = message_text(line, message);
      lines.push_back(first);
    } else if (open && lines.size() < 200) {
      lines.push_back(line);
    }
  }
  close();
  return log;
}

FrameworkLog read_torch_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  return parse_torch_log(in);
}

}  // namespace gp
