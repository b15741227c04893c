// Writing output files so that a reader never sees a half-written file: write a temporary file
// beside the target, flush it, then rename it over the target. Destinations that are not regular
// files (a terminal, /dev/stdout, a FIFO, a shell's >(...)) are written through instead, a
// symbolic link is followed (its target is replaced, the link stays) unless another user made it
// in a shared folder with the sticky bit (/tmp: kUsage, it could be planted), and "-" means stdout.
#pragma once
#include <string>

namespace gp {

// Writes `content` to `path` as described above. Throws gp::Error naming the path: kUsage when
// the path cannot be created or opened (missing or read-only folder), kEnvironment when writing
// fails half-way (disk full, I/O error). A SIGINT/SIGTERM during the write removes the temporary
// file before the process dies.
void write_file_atomic(const std::string& path, const std::string& content);

// Whether write_file_atomic(path, ...) writes to this process's stdout ("-", /dev/stdout, /dev/fd/1):
// a command's own messages then go to stderr, so the output stays clean for a pipe.
bool writes_to_stdout(const std::string& path);

// Checks, without creating anything, that `path` can be written by write_file_atomic: "-", an
// existing writable non-regular file, or a (new or existing) regular file in a writable folder.
// Throws gp::Error(kUsage) "OPTION PATH: why" otherwise. Call it before doing expensive work.
void check_output_path(const std::string& option, const std::string& path);
// True when `path` is this process's standard output ("-", /dev/stdout, /dev/fd/1, /proc/self/fd/1).
bool names_stdout(const std::string& path);
// The file write_file_atomic(path, ...) replaces: `path` with its symbolic links followed (a
// dangling link leads to the missing file it names). Paths under /dev and /proc stay as given.
std::string output_target(const std::string& path);
// Creates `path` (and its parents) if needed and checks it is a writable folder; same errors.
void check_output_folder(const std::string& option, const std::string& path);

// Reads a whole file; throws gp::Error(kBadInput) naming the path when it cannot be read.
std::string read_file(const std::string& path);

// Temporary files that a fatal SIGINT/SIGTERM must not leave behind. While an instance lives,
// its path is unlinked by graphprof's signal handler (installed on first use; it then re-raises
// the signal with the previous disposition). At most kSlots files are registered at once; more
// are simply not protected.
class TempFileGuard {
 public:
  static constexpr int kSlots = 16;
  explicit TempFileGuard(const std::string& path) noexcept;
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  // The file was renamed into place or removed: nothing to clean up any more.
  void release() noexcept;

 private:
  int slot_ = -1;
};

}  // namespace gp
