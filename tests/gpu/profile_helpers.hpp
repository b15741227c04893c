// Helpers of the GPU tests that run `graphprof profile` on a test application: a fresh output
// folder, a shell command's exit status, the console for failure messages, the app result's
// sections.profile.
#pragma once
#include <unistd.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "graphprof/core/report.hpp"

namespace gp::profile_test {

inline std::filesystem::path fresh_dir(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path d = fs::temp_directory_path() / ("graphprof-profile-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline int shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// Every graphprof command runs under timeout(1): a hang fails its test (exit 124 or 137) with the
// console in the message instead of stopping the whole binary.
inline const std::string kTimeout = "timeout -k 5 30 ";

// What graphprof and the application printed (out/console.txt), for failure messages.
inline std::string console(const std::filesystem::path& out) {
  std::ifstream in(out / "console.txt");
  std::ostringstream s;
  s << in.rdbuf();
  return "console:\n" + s.str();
}

// The application's sections.profile as the report file holds it.
inline nlohmann::json profile_of(const Report& r) {
  for (const auto& x : r.results)
    if (x.mode == Mode::kApp && x.params.empty() && x.sections.profile) return to_json(*x.sections.profile);
  throw std::runtime_error("no app result");
}

}  // namespace gp::profile_test
