// file:line of native frames with binutils' addr2line (graphprof/profile/source_lines.hpp). The
// only file that runs it: one `addr2line -e MODULE -f -C -i -a ADDRESS...` per module (in batches
// of a few thousand addresses), its output read from a pipe.
#include "graphprof/profile/source_lines.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>
#include <utility>

#include "graphprof/core/elf_identity.hpp"
#include "graphprof/core/text_format.hpp"

extern char** environ;

namespace gp {

namespace {

constexpr std::size_t kBatch = 2000;  // addresses per addr2line call (well inside the argument limit)

// A module's file, mapped read-only while it is checked.
struct MappedFile {
  const char* data = nullptr;
  std::size_t size = 0;
  std::int64_t mtime = 0;
  int error = 0;
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      error = errno;
      return;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
      error = EINVAL;
    } else {
      void* map = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (map == MAP_FAILED) {
        error = errno;
      } else {
        data = static_cast<const char*>(map);
        size = static_cast<std::size_t>(st.st_size);
        mtime = static_cast<std::int64_t>(st.st_mtime);
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data != nullptr) ::munmap(const_cast<char*>(data), size);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
};

// Whether an ELF64 file has DWARF line information of its own or names a separate debug file
// (.gnu_debuglink, which addr2line follows).
bool has_debug_info(const char* data, std::size_t size) {
  if (size < sizeof(Elf64_Ehdr)) return false;
  Elf64_Ehdr eh;
  std::memcpy(&eh, data, sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return false;
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      std::uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr) > size - eh.e_shoff || eh.e_shstrndx >= eh.e_shnum)
    return false;
  auto section = [&](unsigned i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, data + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  const Elf64_Shdr names = section(eh.e_shstrndx);
  if (names.sh_offset > size || names.sh_size > size - names.sh_offset) return false;
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if (sh.sh_name >= names.sh_size) continue;
    const char* name = data + names.sh_offset + sh.sh_name;
    const std::size_t len = strnlen(name, names.sh_size - sh.sh_name);
    const std::string n(name, len);
    if (n == ".debug_line" || n == ".zdebug_line" || n == ".gnu_debuglink") return true;
  }
  return false;
}

// Runs `argv` with stdout to a pipe (stderr to /dev/null) and returns what it wrote; false when it
// could not be started, did not exit 0, or ran past `timeout_ms` (then it is killed, `timed_out`).
bool run_tool(const std::vector<std::string>& args, int timeout_ms, std::string& out, int& spawn_error, bool& timed_out) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    spawn_error = errno;
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  spawn_error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawn_error != 0) {
    ::close(fds[0]);
    return false;
  }
  char buf[65536];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    pollfd p{fds[0], POLLIN, 0};
    const int ready = left > 0 ? ::poll(&p, 1, static_cast<int>(left)) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {  // a module too large to read in time: the report does not wait for it
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    const ssize_t n = ready > 0 ? ::read(fds[0], buf, sizeof buf) : -1;
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool is_address_line(const std::string& l) {
  if (l.size() < 3 || l[0] != '0' || l[1] != 'x') return false;
  return l.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
}

}  // namespace

std::map<std::uint64_t, std::vector<SourceLocation>> parse_addr2line_output(const std::string& text) {
  std::map<std::uint64_t, std::vector<SourceLocation>> out;
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  std::vector<SourceLocation>* current = nullptr;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_address_line(lines[i])) {
      current = &out[std::stoull(lines[i].substr(2), nullptr, 16)];
      continue;
    }
    if (current == nullptr || i + 1 >= lines.size()) continue;
    // A (function, file:line) pair; the line may be "?" and carry " (discriminator N)".
    const std::string& function = lines[i];
    std::string where = lines[++i];
    if (const std::size_t d = where.find(" (discriminator"); d != std::string::npos) where.resize(d);
    const std::size_t colon = where.rfind(':');
    if (colon == std::string::npos) continue;
    SourceLocation loc;
    loc.file = where.substr(0, colon);
    const std::string number = where.substr(colon + 1);
    if (!number.empty() && number.find_first_not_of("0123456789") == std::string::npos && number.size() < 10)
      loc.line = std::stoi(number);
    if (loc.file.empty() || loc.file == "??" || loc.line <= 0) continue;
    loc.function = function == "??" ? "" : function;
    current->push_back(std::move(loc));
  }
  for (auto it = out.begin(); it != out.end();) it = it->second.empty() ? out.erase(it) : std::next(it);
  return out;
}

SourceLineResolver::SourceLineResolver(std::string tool, int timeout_ms) : tool_(std::move(tool)), timeout_ms_(timeout_ms) {}

SourceLineResolver::Module& SourceLineResolver::check(const std::string& path, const ModuleIdentityRecord& id) {
  Module& m = modules_[Key{path, id.build_id, id.size, id.mtime}];
  if (m.checked) return m;
  m.checked = true;
  const MappedFile file(path);
  if (file.data == nullptr) {
    m.missing = file.error == ENOENT ? "the file is not there any more" : std::string("the file cannot be read: ") + std::strerror(file.error);
    return m;
  }
  const std::string build_id = elf_build_id(file.data, file.size);
  const bool same = !id.build_id.empty() ? build_id == id.build_id : file.size == id.size && file.mtime == id.mtime;
  if (!same) {
    m.missing = id.build_id.empty() ? "the file changed since the run (size or modification time)"
                                    : "the file is another build than the one that ran (build ID)";
    return m;
  }
  if (!has_debug_info(file.data, file.size)) m.missing = "no debug information (built without -g, or stripped)";
  return m;
}

void SourceLineResolver::look_up(const std::string& path, Module& m, const std::vector<std::uint64_t>& addresses) {
  for (std::size_t from = 0; from < addresses.size() && m.missing.empty(); from += kBatch) {
    std::vector<std::string> args{tool_, "-e", path, "-f", "-C", "-i", "-a"};
    for (std::size_t i = from; i < addresses.size() && i < from + kBatch; ++i)
      args.push_back(strf("0x%llx", static_cast<unsigned long long>(addresses[i])));
    std::string out;
    int spawn_error = 0;
    bool timed_out = false;
    if (!run_tool(args, timeout_ms_, out, spawn_error, timed_out)) {
      m.missing = spawn_error == ENOENT ? tool_ + " not found (binutils)"
                  : spawn_error != 0    ? tool_ + " could not be started: " + std::strerror(spawn_error)
                  : timed_out           ? tool_ + strf(" did not finish within %d s (stopped)", timeout_ms_ / 1000)
                                        : tool_ + " failed on the file";
      return;
    }
    for (auto& [address, locations] : parse_addr2line_output(out)) m.lines[address] = std::move(locations);
  }
  for (std::uint64_t a : addresses) m.lines.try_emplace(a);  // asked: not asked again
}

void SourceLineResolver::resolve(SiteRecords& records) {
  // The addresses to look up per module: each frame's return address minus one (inside the call).
  std::map<std::string, std::set<std::uint64_t>> wanted;
  for (const auto& site : records.sites)
    for (const auto& f : site.native)
      if (!f.module.empty() && f.offset > 0) wanted[f.module].insert(f.offset - 1);
  std::map<std::string, Module*> by_path;
  for (const auto& [path, addresses] : wanted) {
    const auto id = records.modules.find(path);
    if (id == records.modules.end()) {
      records.source_lines_missing[path] = "the records do not identify the module (an older graphprof recorded them)";
      continue;
    }
    Module& m = check(path, id->second);
    std::vector<std::uint64_t> todo;
    for (std::uint64_t a : addresses)
      if (m.lines.find(a) == m.lines.end()) todo.push_back(a);
    if (m.missing.empty() && !todo.empty()) look_up(path, m, todo);
    bool any = false;
    for (std::uint64_t a : addresses)
      if (auto it = m.lines.find(a); it != m.lines.end() && !it->second.empty()) any = true;
    std::string& missing = records.source_lines_missing[path];
    missing = m.missing;
    if (missing.empty() && !any) missing = "no debug information for these addresses";
    by_path[path] = &m;
  }
  for (auto& site : records.sites)
    for (auto& f : site.native) {
      const auto m = by_path.find(f.module);
      if (m == by_path.end() || f.offset == 0) continue;
      if (auto it = m->second->lines.find(f.offset - 1); it != m->second->lines.end()) f.source = it->second;
    }
}

}  // namespace gp
