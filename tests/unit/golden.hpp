// Golden-file comparison shared by the output tests. Regenerate the files after an intended change
// with GRAPHPROF_UPDATE_GOLDEN=1 (e.g. `GRAPHPROF_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden`),
// then review the diff.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/report.hpp"

namespace gp {

inline void expect_golden_file(const std::string& path, const std::string& text) {
  const char* update = std::getenv("GRAPHPROF_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    write_file_atomic(path, text);
    return;
  }
  const std::string want = read_file(path);
  EXPECT_EQ(text, want) << "golden file " << path << " differs; rerun with GRAPHPROF_UPDATE_GOLDEN=1 if intended";
}

}  // namespace gp
