// Writing output files so that a reader never sees a half-written file: write a temporary file
// beside the target, flush it, then rename it over the target.
#pragma once
#include <string>

namespace gp {

// Throws gp::Error(kBadInput) naming the path when the folder is missing or not writable.
void write_file_atomic(const std::string& path, const std::string& content);
// Reads a whole file; throws gp::Error(kBadInput) naming the path when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace gp
