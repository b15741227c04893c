// The usual workload checksum: the listed device ranges are copied to the host, the stream is
// synchronised, then the listed host ranges (pinned outputs written by copies or host functions)
// are appended, and the whole is digested in the order the ranges were listed.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "graphprof/cuda/cuda_check.hpp"
#include "graphprof/cuda/workload.hpp"

namespace gp {

class OutputDigest {
 public:
  OutputDigest& device(const void* p, std::size_t bytes) {
    parts_.push_back(Part{p, bytes, true});
    return *this;
  }
  OutputDigest& host(const void* p, std::size_t bytes) {
    parts_.push_back(Part{p, bytes, false});
    return *this;
  }

  std::string compute(cudaStream_t s) const {
    std::size_t total = 0;
    for (const Part& part : parts_) total += part.bytes;
    std::vector<unsigned char> buf(total);
    std::size_t off = 0;
    for (const Part& part : parts_) {
      if (part.on_device)
        GP_CUDA_CHECK(cudaMemcpyAsync(buf.data() + off, part.p, part.bytes, cudaMemcpyDeviceToHost, s));
      off += part.bytes;
    }
    // Host ranges are read only after the stream is idle: the last copy or host function that
    // writes them belongs to the stream.
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
    off = 0;
    for (const Part& part : parts_) {
      if (!part.on_device) std::memcpy(buf.data() + off, part.p, part.bytes);
      off += part.bytes;
    }
    return digest_bytes(buf.data(), buf.size());
  }

 private:
  struct Part {
    const void* p;
    std::size_t bytes;
    bool on_device;
  };
  std::vector<Part> parts_;
};

}  // namespace gp
