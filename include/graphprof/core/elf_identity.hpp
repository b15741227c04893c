// Which build of a module (executable or shared library) a file is: its GNU build ID, read from the
// ELF notes of a file mapped into memory. The injection library records it with each call site's
// modules (src/inject/common/native_stack.cpp) and graphprof checks it before it reads a module's debug
// information for file:line (src/profile/source_lines.cpp), so a module rebuilt or replaced since
// the run, or another machine's file of the same path, is never read as the one that ran.
// Header-only and without dependencies: the injection library links nothing of graphprof.
#pragma once
#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace gp {

// Lower-case hex of the NT_GNU_BUILD_ID note of an ELF64 file (`data`, `size`: the whole file);
// "" when the file is not a readable ELF64 file or has no build ID. Reads only inside the buffer.
inline std::string elf_build_id(const char* data, std::size_t size) {
  if (data == nullptr || size < sizeof(Elf64_Ehdr)) return "";
  Elf64_Ehdr eh;
  std::memcpy(&eh, data, sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return "";
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      std::uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr) > size - eh.e_shoff)
    return "";
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, data + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    if (sh.sh_type != SHT_NOTE || sh.sh_offset > size || sh.sh_size > size - sh.sh_offset) continue;
    std::size_t at = sh.sh_offset;
    const std::size_t end = sh.sh_offset + sh.sh_size;
    while (end - at >= sizeof(Elf64_Nhdr)) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, data + at, sizeof nh);
      at += sizeof nh;
      const std::size_t name_len = (std::size_t{nh.n_namesz} + 3) & ~std::size_t{3};
      const std::size_t desc_len = (std::size_t{nh.n_descsz} + 3) & ~std::size_t{3};
      if (name_len > end - at || desc_len > end - at - name_len) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(data + at, "GNU", 4) == 0 && nh.n_descsz > 0) {
        static const char kHex[] = "0123456789abcdef";
        std::string id;
        for (std::size_t k = 0; k < nh.n_descsz; ++k) {
          const auto b = static_cast<unsigned char>(data[at + name_len + k]);
          id += kHex[b >> 4];
          id += kHex[b & 15];
        }
        return id;
      }
      at += name_len + desc_len;
    }
  }
  return "";
}

}  // namespace gp
