// Atomic file output (temporary file + fsync + rename, or write-through for non-regular files),
// output path checks, the temporary-file cleanup on fatal signals, and whole-file reads.
#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/signal_chain.hpp"
#include "graphprof/core/temp_folder.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "graphprof/core/error.hpp"

namespace gp {

namespace {

// ---- temporary files removed by the signal handler -------------------------------------------
// Plain arrays and lock-free atomics only: the handler may touch nothing else.
constexpr std::size_t kMaxTempPath = 4096;
char g_temp_paths[TempFileGuard::kSlots][kMaxTempPath];
std::atomic<int> g_temp_state[TempFileGuard::kSlots];  // 0 free, 1 being filled, 2 registered
ChainedSignals g_before_cleanup;  // what SIGINT/SIGTERM did before

char g_temp_folders[TempFolderGuard::kSlots][kMaxTempPath];
std::atomic<int> g_folder_state[TempFolderGuard::kSlots];  // 0 free, 1 being filled, 2 registered

// The kernel's directory entry (getdents64): read with the raw system call, which is safe in a
// signal handler (opendir/readdir allocate).
struct DirEntry64 {
  std::uint64_t ino;
  std::int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

// Removes `path` and what is in it, one level of subfolders deep (the folders graphprof makes
// hold files, a rendezvous folder may hold a folder of files). Async-signal-safe.
void remove_folder_signal_safe(int parent, const char* path, int depth) noexcept {
  for (int pass = 0; pass < 4; ++pass) {  // entries removed while listing can be skipped once
    const int fd = ::openat(parent, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return;
    alignas(8) char buf[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        const auto* d = reinterpret_cast<const DirEntry64*>(buf + at);
        at += d->reclen;
        if (d->name[0] == '.' && (d->name[1] == '\0' || (d->name[1] == '.' && d->name[2] == '\0'))) continue;
        if (::unlinkat(fd, d->name, 0) != 0 && errno == EISDIR && depth > 0) remove_folder_signal_safe(fd, d->name, depth - 1);
      }
    }
    ::close(fd);
    if (::unlinkat(parent, path, AT_REMOVEDIR) == 0 || errno == ENOENT) return;
  }
}

void unlink_registered_temp_files() noexcept {
  for (int i = 0; i < TempFileGuard::kSlots; ++i)
    if (g_temp_state[i].load() == 2) ::unlink(g_temp_paths[i]);
  for (int i = 0; i < TempFolderGuard::kSlots; ++i)
    if (g_folder_state[i].load() == 2) remove_folder_signal_safe(AT_FDCWD, g_temp_folders[i], 1);
}

extern "C" void graphprof_cleanup_on_signal(int sig) {
  unlink_registered_temp_files();
  // The default disposition ends the process with this signal, so the parent sees "killed by
  // SIGINT/SIGTERM" as it would have without us.
  pass_signal_on(sig, g_before_cleanup);
}

void install_cleanup_handler_once() {
  static std::once_flag once;
  std::call_once(once, [] { chain_signal_handler(graphprof_cleanup_on_signal, g_before_cleanup); });
}

// ---- where a path really leads ----------------------------------------------------------------
bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Paths that name an already open descriptor of this process: write to that descriptor, do not
// reopen the file behind it (that would start at offset 0 of a redirected stdout).
int inherited_fd(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!starts_with(path, prefix)) continue;
    const std::string n = path.substr(std::strlen(prefix));
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 6) return -1;
    const int fd = std::atoi(n.c_str());
    return ::fcntl(fd, F_GETFD) >= 0 ? fd : -1;
  }
  return -1;
}

// A link in a folder everyone may write that has the sticky bit (/tmp), made by someone who owns
// neither the link's folder nor this process: anyone can plant such a link under a name graphprof
// is about to write, to have it replace a file of the user running it (Linux's
// fs.protected_symlinks refuses to follow these for opening; rename would not ask). Not followed.
bool planted_link(const std::string& link, const struct stat& st) {
  const auto parent = std::filesystem::path(link).parent_path();
  struct stat dir {};
  if (::stat(parent.empty() ? "." : parent.c_str(), &dir) != 0) return false;
  const bool shared = (dir.st_mode & S_ISVTX) != 0 && (dir.st_mode & S_IWOTH) != 0;
  return shared && st.st_uid != ::geteuid() && st.st_uid != dir.st_uid;
}

// Follows symbolic links (relative ones from the link's folder) to the path that is replaced.
// A dangling link resolves to its missing target, which is then created. A planted link (above)
// is not followed: `refused` (when given) says why, and the path is returned as it is.
std::string follow_links(std::string path, std::string* refused = nullptr) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    if (planted_link(path, st)) {
      if (refused != nullptr)
        *refused = path + " is a symbolic link of another user (uid " + std::to_string(st.st_uid) +
                   ") in a shared folder with the sticky bit: graphprof does not write through it";
      return path;
    }
    std::string target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 4095) + 1, '\0');
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return path;
    target.resize(static_cast<std::size_t>(n));
    if (target.empty() || target[0] != '/') {
      const auto parent = std::filesystem::path(path).parent_path();
      target = (parent.empty() ? std::filesystem::path(target) : parent / target).string();
    }
    path = target;
  }
  return path;
}

std::string folder_of(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

void write_all(int fd, const std::string& path, const std::string& content) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(ExitCode::kEnvironment, path + ": write failed: " + std::strerror(errno));
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

// Not a regular file (terminal, FIFO, pipe, character device), or a descriptor we already hold.
void write_through(const std::string& path, int inherited, const std::string& content) {
  if (inherited >= 0) {
    std::fflush(stdout);  // keep what graphprof printed before in front of this
    write_all(inherited, path, content);
    return;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw usage_error(path + ": cannot open for writing: " + std::strerror(errno));
  try {
    write_all(fd, path, content);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

}  // namespace

namespace {

// Registers `path` in a free one of `slots` for the signal handler; the slot, or -1 (none free or
// too long a path: not protected).
int register_for_signal(std::atomic<int>* state, char (*paths)[kMaxTempPath], int slots, const std::string& path) noexcept {
  if (path.size() >= kMaxTempPath) return -1;
  install_cleanup_handler_once();
  for (int i = 0; i < slots; ++i) {
    int expected = 0;
    if (!state[i].compare_exchange_strong(expected, 1)) continue;
    std::memcpy(paths[i], path.c_str(), path.size() + 1);
    state[i].store(2);
    return i;
  }
  return -1;
}

}  // namespace

TempFileGuard::TempFileGuard(const std::string& path) noexcept
    : slot_(register_for_signal(g_temp_state, g_temp_paths, kSlots, path)) {}

TempFileGuard::~TempFileGuard() { release(); }

void TempFileGuard::release() noexcept {
  if (slot_ >= 0) g_temp_state[slot_].store(0);
  slot_ = -1;
}

TempFolderGuard::TempFolderGuard(const std::string& path) noexcept
    : slot_(register_for_signal(g_folder_state, g_temp_folders, kSlots, path)) {}

TempFolderGuard::~TempFolderGuard() {
  if (slot_ >= 0) g_folder_state[slot_].store(0);
}

void write_file_atomic(const std::string& path, const std::string& content) {
  if (path.empty()) throw usage_error("output path is empty");
  const int inherited = inherited_fd(path);
  if (inherited >= 0 || starts_with(path, "/dev/") || starts_with(path, "/proc/")) {
    write_through(path, inherited, content);
    return;
  }
  std::string refused;
  const std::string target = follow_links(path, &refused);
  if (!refused.empty()) throw usage_error(path + ": " + refused);
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw usage_error(path + ": is a folder, not a file");
  if (exists && !S_ISREG(st.st_mode)) {
    write_through(target, -1, content);
    return;
  }
  std::string tmpl = target + ".tmp.XXXXXX";
  // Blocked while the file is created and registered, so a signal cannot slip in between.
  sigset_t fatal, old;
  sigemptyset(&fatal);
  sigaddset(&fatal, SIGINT);
  sigaddset(&fatal, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &fatal, &old);
  const int fd = ::mkstemp(tmpl.data());
  const int create_errno = errno;
  TempFileGuard guard(tmpl);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (fd < 0)
    throw usage_error(path + ": cannot create a file in folder " + folder_of(target) + ": " + std::strerror(create_errno));
  auto fail = [&](const std::string& what, int e) {
    ::unlink(tmpl.c_str());
    throw Error(ExitCode::kEnvironment, path + ": " + what + ": " + std::strerror(e));
  };
  try {
    write_all(fd, path, content);
  } catch (...) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    throw;
  }
  // mkstemp creates 0600; keep the mode of the file we replace, else an ordinary user file.
  ::fchmod(fd, exists ? (st.st_mode & 07777) : 0644);
  if (::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    fail("flush failed", e);
  }
  if (::close(fd) != 0) fail("flush failed", errno);
  ::pthread_sigmask(SIG_BLOCK, &fatal, &old);
  const int renamed = ::rename(tmpl.c_str(), target.c_str());
  const int rename_errno = errno;
  guard.release();
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (renamed != 0) fail("rename failed", rename_errno);
}

bool writes_to_stdout(const std::string& path) { return inherited_fd(path) == STDOUT_FILENO; }

std::string output_target(const std::string& path) {
  return (starts_with(path, "/dev/") || starts_with(path, "/proc/")) ? path : follow_links(path);
}

bool names_stdout(const std::string& path) { return !path.empty() && inherited_fd(path) == STDOUT_FILENO; }

void check_output_path(const std::string& option, const std::string& path) {
  auto bad = [&](const std::string& why) { throw usage_error(option + " " + path + ": " + why); };
  if (path.empty()) throw usage_error(option + ": the path is empty");
  if (inherited_fd(path) >= 0) return;
  std::string refused;
  const std::string target = (starts_with(path, "/dev/") || starts_with(path, "/proc/")) ? path : follow_links(path, &refused);
  if (!refused.empty()) bad(refused);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) bad("is a folder, not a file");
    if (!S_ISREG(st.st_mode)) {
      if (::access(target.c_str(), W_OK) != 0) bad(std::string("cannot be written: ") + std::strerror(errno));
      return;
    }
  } else if (starts_with(path, "/dev/") || starts_with(path, "/proc/")) {
    bad("does not exist");
  }
  const std::string folder = folder_of(target);
  struct stat dst {};
  if (::stat(folder.c_str(), &dst) != 0) bad("folder " + folder + " does not exist");
  if (!S_ISDIR(dst.st_mode)) bad(folder + " is not a folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) bad("folder " + folder + " is not writable: " + std::strerror(errno));
}

void check_output_folder(const std::string& option, const std::string& path) {
  if (path.empty()) throw usage_error(option + ": the path is empty");
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw usage_error(option + " " + path + ": cannot create folder: " + ec.message());
  if (!std::filesystem::is_directory(path, ec)) throw usage_error(option + " " + path + ": is not a folder");
  if (::access(path.c_str(), W_OK | X_OK) != 0)
    throw usage_error(option + " " + path + ": folder is not writable: " + std::strerror(errno));
}

namespace {

// The most graphprof reads of one input file (docs/graphs.md): a 1,000,000-node verbose dump is
// 447 MB, and the loader needs about 2.5x the file.
constexpr std::uint64_t kMaxInputBytes = std::uint64_t{2} << 30;

const char* file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string read_file(const std::string& path) {
  // Only regular files, opened without blocking (a FIFO with no writer would wait forever, and
  // /dev/zero never ends), and at most kMaxInputBytes; standard input only when named "-".
  const bool from_stdin = path == "-";
  const int fd = from_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw input_error(path + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    bool own;
    ~Closer() {
      if (own) ::close(fd);
    }
  } closer{fd, !from_stdin};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw input_error(path + ": cannot read: " + std::strerror(errno));
  if (!from_stdin) {
    if (S_ISDIR(st.st_mode)) throw input_error(path + ": is a folder, not a file");
    if (!S_ISREG(st.st_mode))
      throw input_error(path + ": is " + file_kind(st.st_mode) +
                        ", not a regular file; graphprof reads inputs from regular files, or from standard input "
                        "when the input is given as '-'");
    if (static_cast<std::uint64_t>(st.st_size) > kMaxInputBytes)
      throw input_error(path + ": " + std::to_string(st.st_size) + " bytes is more than graphprof reads (" +
                        std::to_string(kMaxInputBytes >> 20) + " MiB)");
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  }
  std::string out;
  if (S_ISREG(st.st_mode)) out.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw input_error(path + ": read failed: " + std::strerror(errno));
    }
    if (out.size() + static_cast<std::size_t>(n) > kMaxInputBytes)
      throw input_error(path + ": more than " + std::to_string(kMaxInputBytes >> 20) + " MiB, more than graphprof reads");
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace gp
