// A temporary folder that a fatal SIGINT/SIGTERM must not leave behind (--isolate's trace
// records, --ranks' rendezvous): removed, with the files in it and one level of subfolders, by
// the same handler that removes TempFileGuard's files (atomic_file.hpp) while an instance lives.
// The owner still removes it normally; this only covers the signal.
#pragma once
#include <string>

namespace gp {

class TempFolderGuard {
 public:
  static constexpr int kSlots = 8;
  explicit TempFolderGuard(const std::string& path) noexcept;
  ~TempFolderGuard();
  TempFolderGuard(const TempFolderGuard&) = delete;
  TempFolderGuard& operator=(const TempFolderGuard&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace gp
