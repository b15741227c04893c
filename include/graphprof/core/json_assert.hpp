// nlohmann::json's own checks, made to throw instead of being compiled out. Reading a key that an
// object does not have through a const operator[] (profile["exit"], a report's field that a
// hand-edited file left out) is undefined behaviour when JSON_ASSERT is assert and NDEBUG is set:
// it read freed memory and crashed `graphprof report`. With this header (every C++ file of
// graphprof gets it first: -include, top-level CMakeLists.txt) it throws gp::JsonMisuse, which the
// commands that read reports turn into exit 3 naming the file. (Inside nlohmann's noexcept
// functions, where only its own invariants are checked, a failed check ends the process.)
#pragma once
#include <stdexcept>

namespace gp {

// A JSON value used as what it is not: a reader met a report of another shape than it expects.
struct JsonMisuse : std::logic_error {
  using std::logic_error::logic_error;
};

[[noreturn]] inline void json_misuse() { throw JsonMisuse("a field that the reader needs is missing or of another kind"); }

}  // namespace gp

#define JSON_ASSERT(x) ((x) ? static_cast<void>(0) : ::gp::json_misuse())
