// Output files: checks before measuring, write-through to non-regular files, symbolic links,
// "-" for stdout, and no temporary file left behind by SIGINT/SIGTERM.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/temp_folder.hpp"

namespace gp {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("gp_atomic_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

ExitCode code_of_check(const std::string& option, const std::string& path, std::string* message = nullptr) {
  try {
    check_output_path(option, path);
  } catch (const Error& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
  return ExitCode::kOk;
}

int entries_in(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(OutputPath, MissingFolderIsAUsageErrorNamingOptionAndPath) {
  std::string msg;
  EXPECT_EQ(code_of_check("--json", "/nonexistent-gp-folder/r.json", &msg), ExitCode::kUsage);
  EXPECT_EQ(msg, "--json /nonexistent-gp-folder/r.json: folder /nonexistent-gp-folder does not exist");
}

TEST(OutputPath, FolderGivenForAFileIsRejected) {
  const fs::path d = fresh_dir("folder");
  std::string msg;
  EXPECT_EQ(code_of_check("--markdown", d.string(), &msg), ExitCode::kUsage);
  EXPECT_NE(msg.find("is a folder"), std::string::npos) << msg;
  fs::remove_all(d);
}

TEST(OutputPath, FileUnderAFileIsRejected) {
  const fs::path d = fresh_dir("under_file");
  std::ofstream(d / "plain") << "x";
  EXPECT_EQ(code_of_check("--json", (d / "plain" / "r.json").string()), ExitCode::kUsage);
  std::string msg;
  try {
    check_output_folder("--out", (d / "plain" / "sub").string());
  } catch (const Error& e) {
    msg = e.what();
    EXPECT_EQ(e.code(), ExitCode::kUsage);
  }
  EXPECT_NE(msg.find("--out "), std::string::npos) << msg;
  fs::remove_all(d);
}

TEST(OutputPath, ReadOnlyFolderIsRejected) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  const fs::path d = fresh_dir("readonly");
  fs::permissions(d, fs::perms::owner_read | fs::perms::owner_exec);
  std::string msg;
  EXPECT_EQ(code_of_check("--json", (d / "r.json").string(), &msg), ExitCode::kUsage);
  EXPECT_NE(msg.find("not writable"), std::string::npos) << msg;
  fs::permissions(d, fs::perms::owner_all);
  fs::remove_all(d);
}

TEST(OutputPath, StdoutDevicesFifosAndNewFilesAreAccepted) {
  const fs::path d = fresh_dir("accept");
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(code_of_check("--json", "-"), ExitCode::kOk);
  EXPECT_EQ(code_of_check("--json", "/dev/stdout"), ExitCode::kOk);
  EXPECT_EQ(code_of_check("--json", "/dev/null"), ExitCode::kOk);
  EXPECT_EQ(code_of_check("--json", (d / "fifo").string()), ExitCode::kOk);
  EXPECT_EQ(code_of_check("--json", (d / "new.json").string()), ExitCode::kOk);
  EXPECT_FALSE(fs::exists(d / "new.json"));  // checking creates nothing
  fs::remove_all(d);
}

TEST(AtomicWrite, MissingFolderIsAUsageError) {
  try {
    write_file_atomic("/nonexistent-gp-folder/x.json", "x");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-gp-folder/x.json"), std::string::npos) << e.what();
  }
}

TEST(AtomicWrite, FifoIsWrittenThroughAndStaysAFifo) {
  const fs::path d = fresh_dir("fifo");
  const fs::path fifo = d / "out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo);
    received.assign(std::istreambuf_iterator<char>(in), {});
  });
  write_file_atomic(fifo.string(), "through the pipe\n");
  reader.join();
  EXPECT_EQ(received, "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(entries_in(d), 1);  // no temporary file, no regular file beside it
  fs::remove_all(d);
}

TEST(AtomicWrite, SymlinkIsFollowedAndKept) {
  const fs::path d = fresh_dir("symlink");
  fs::create_directories(d / "real");
  std::ofstream(d / "real" / "r.json") << "old";
  fs::create_symlink("real/r.json", d / "link.json");  // relative, resolved from the link's folder
  write_file_atomic((d / "link.json").string(), "new");
  EXPECT_TRUE(fs::is_symlink(d / "link.json"));
  EXPECT_EQ(read_file((d / "real" / "r.json").string()), "new");
  // A dangling link: its target is created, the link stays.
  fs::create_symlink(d / "real" / "later.json", d / "dangling.json");
  write_file_atomic((d / "dangling.json").string(), "made");
  EXPECT_TRUE(fs::is_symlink(d / "dangling.json"));
  EXPECT_EQ(read_file((d / "real" / "later.json").string()), "made");
  EXPECT_EQ(entries_in(d / "real"), 2);
  fs::remove_all(d);
}

// A link planted by another user in a shared sticky folder (/tmp) under the name of an output is
// not followed: exit 2 before anything is written, the file it points to untouched. Links of this
// user, or of the folder's owner, and links in other folders are followed as before. Making a
// link of another user needs root (lchown).
TEST(AtomicWrite, ALinkOfAnotherUserInAStickyFolderIsNotFollowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "lchown to another user needs root";
  const fs::path d = fresh_dir("sticky");
  fs::create_directories(d / "shared");
  ASSERT_EQ(::chmod((d / "shared").c_str(), 01777), 0);
  std::ofstream(d / "victim.txt") << "keep";
  fs::create_symlink(d / "victim.txt", d / "shared" / "report.json");
  ASSERT_EQ(::lchown((d / "shared" / "report.json").c_str(), 65534, 65534), 0);
  const std::string planted = (d / "shared" / "report.json").string();
  std::string message;
  EXPECT_EQ(code_of_check("--json", planted, &message), ExitCode::kUsage);
  EXPECT_NE(message.find("--json " + planted + ": " + planted + " is a symbolic link of another user (uid 65534)"), std::string::npos)
      << message;
  EXPECT_THROW(write_file_atomic(planted, "replaced"), Error);
  EXPECT_EQ(read_file((d / "victim.txt").string()), "keep");
  // This user's own link there is followed.
  fs::create_symlink(d / "victim.txt", d / "shared" / "mine.json");
  write_file_atomic((d / "shared" / "mine.json").string(), "mine");
  EXPECT_EQ(read_file((d / "victim.txt").string()), "mine");
  // Another user's link in a folder that is not shared is followed.
  fs::create_symlink(d / "victim.txt", d / "theirs.json");
  ASSERT_EQ(::lchown((d / "theirs.json").c_str(), 65534, 65534), 0);
  EXPECT_EQ(code_of_check("--json", (d / "theirs.json").string()), ExitCode::kOk);
  fs::remove_all(d);
}

// Runs `write` with stdout redirected into `file`; returns that file's inode before and after.
std::pair<ino_t, ino_t> with_stdout_in(const fs::path& file, const std::function<void()>& write) {
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  struct stat before {};
  ::fstat(fd, &before);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  write();
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  struct stat after {};
  ::stat(file.c_str(), &after);
  return {before.st_ino, after.st_ino};
}

TEST(AtomicWrite, DevStdoutAndDashWriteToTheOpenStdout) {
  const fs::path d = fresh_dir("stdout");
  for (const std::string path : {"/dev/stdout", "-", "/dev/fd/1"}) {
    const fs::path file = d / "captured.txt";
    const auto [before, after] = with_stdout_in(file, [&] { write_file_atomic(path, "to stdout via " + path + "\n"); });
    EXPECT_EQ(before, after) << path << ": stdout's file was replaced instead of written";
    EXPECT_EQ(read_file(file.string()), "to stdout via " + path + "\n");
  }
  EXPECT_EQ(entries_in(d), 1);
  fs::remove_all(d);
}

TEST(AtomicWrite, ReplacingKeepsTheFileMode) {
  const fs::path d = fresh_dir("mode");
  std::ofstream(d / "r.json") << "x";
  fs::permissions(d / "r.json", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_file_atomic((d / "r.json").string(), "y");
  EXPECT_EQ(fs::status(d / "r.json").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  fs::remove_all(d);
}

// A process killed by SIGTERM/SIGINT while a temporary file is registered leaves nothing behind
// and still dies of that signal.
void expect_signal_removes_temp_file(int sig) {
  // A shell without job control starts background commands with SIGINT ignored; an ignored signal
  // ends nothing, and graphprof rightly leaves it ignored (install_cleanup_handler_once).
  struct sigaction current {};
  if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN)
    GTEST_SKIP() << "signal " << sig << " is ignored in this test process (started in the background?)";
  const fs::path d = fresh_dir("signal" + std::to_string(sig));
  const fs::path tmp = d / "r.json.tmp.ABCDEF";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::ofstream(tmp) << std::string(1 << 20, 'x');
    TempFileGuard guard(tmp.string());
    ::raise(sig);
    ::_exit(0);  // not reached: the signal ends the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_FALSE(fs::exists(tmp));
  fs::remove_all(d);
}

TEST(AtomicWrite, SigtermRemovesRegisteredTemporaryFile) { expect_signal_removes_temp_file(SIGTERM); }
TEST(AtomicWrite, SigintRemovesRegisteredTemporaryFile) { expect_signal_removes_temp_file(SIGINT); }

// A temporary folder (--isolate's trace records, --ranks' rendezvous) registered with
// TempFolderGuard is gone, files and a subfolder of files included, when SIGTERM/SIGINT ends the
// process; before, it stayed in the temporary folder.
void expect_signal_removes_temp_folder(int sig) {
  struct sigaction current {};
  if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN)
    GTEST_SKIP() << "signal " << sig << " is ignored in this test process (started in the background?)";
  const fs::path d = fresh_dir("folder-signal" + std::to_string(sig));
  const fs::path folder = d / "graphprof-ranks-123";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    fs::create_directories(folder / "nccl");
    for (int i = 0; i < 300; ++i) std::ofstream(folder / ("rank" + std::to_string(i) + ".json")) << "x";
    std::ofstream(folder / "nccl" / "id") << "y";
    TempFolderGuard guard(folder.string());
    ::raise(sig);
    ::_exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig);
  EXPECT_FALSE(fs::exists(folder));
  fs::remove_all(d);
}

TEST(AtomicWrite, SigtermRemovesRegisteredTemporaryFolder) { expect_signal_removes_temp_folder(SIGTERM); }
TEST(AtomicWrite, SigintRemovesRegisteredTemporaryFolder) { expect_signal_removes_temp_folder(SIGINT); }

// Inputs: only regular files (a FIFO with no writer is refused at once, not waited on), '-' is
// standard input.
TEST(ReadFile, RefusesFifosAndDevicesAtOnceNamingThem) {
  const fs::path d = fresh_dir("read-fifo");
  const fs::path fifo = d / "in.dot";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string path : {fifo.string(), std::string("/dev/zero"), std::string("/dev/null")}) {
    try {
      read_file(path);
      ADD_FAILURE() << path << " was read";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(e.what()).find(path + ": is a"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
  }
  std::ofstream(d / "f.txt") << "text";
  EXPECT_EQ(read_file((d / "f.txt").string()), "text");
  fs::remove_all(d);
}

// The real write: a child writes a large file and is killed while it does so; whatever moment the
// signal hits, there is either the finished target or nothing, never a *.tmp.* file.
TEST(AtomicWrite, KilledDuringWriteLeavesNoTemporaryFile) {
  const fs::path d = fresh_dir("killed");
  const std::string big(64u << 20, 'r');
  for (int attempt = 0; attempt < 3; ++attempt) {
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(ready[0]);
      (void)::write(ready[1], "go", 2);
      for (;;) write_file_atomic((d / "r.json").string(), big);
    }
    ::close(ready[1]);
    char buf[2];
    ASSERT_EQ(::read(ready[0], buf, 2), 2);
    ::close(ready[0]);
    ::usleep(20000 * (attempt + 1));
    ::kill(pid, SIGTERM);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    for (const auto& e : fs::directory_iterator(d))
      EXPECT_EQ(e.path().filename(), "r.json") << "left behind: " << e.path();
  }
  fs::remove_all(d);
}

}  // namespace
}  // namespace gp
