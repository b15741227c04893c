// Atomic file output (temporary file + fsync + rename) and whole-file reads.
#include "graphprof/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "graphprof/error.hpp"

namespace gp {

void write_file_atomic(const std::string& path, const std::string& content) {
  if (path.empty()) throw usage_error("output path is empty");
  std::string tmpl = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw input_error(path + ": cannot create output file: " + std::strerror(errno));
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw input_error(path + ": write failed: " + std::strerror(e));
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  // mkstemp creates 0600; reports are ordinary user files.
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmpl.c_str());
    throw input_error(path + ": flush failed: " + std::strerror(e));
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmpl.c_str());
    throw input_error(path + ": rename failed: " + std::strerror(e));
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw input_error(path + ": read failed");
  return ss.str();
}

}  // namespace gp
