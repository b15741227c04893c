// decode: one token step of a small transformer-like decoder at small batch. Per layer: RMSNorm,
// a matrix-vector product (stands in for attention's projection), residual add, RMSNorm, the MLP
// (gate/up product, SiLU(gate) * up, down product), residual add. Each op is its own kernel
// and the matrices are small, so the step is launch-bound like LLM decoding at batch 1.
#include <cmath>
#include <vector>

#include "block_reduce.cuh"
#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/cuda/iteration_ops.hpp"
#include "graphprof/cuda/output_digest.hpp"

namespace gp {
namespace {

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = kThreads / 32;

// A deterministic pseudo-random value in [-1, 1) from an index, for weights made on the device.
__device__ inline float hash_unit(unsigned long long i, unsigned seed) {
  unsigned long long z = i * 0x9E3779B97F4A7C15ULL + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void dec_fill(float* w, unsigned long long count, unsigned seed, float offset, float scale) {
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    w[i] = offset + scale * hash_unit(i, seed);
}

// The token's embedding: every step starts from the same input, so each iteration does the same work.
__global__ void dec_embed(const float* x0, float* x, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] = x0[i];
}

// y = x / rms(x) * w, one block per batch row.
__global__ void dec_rmsnorm(const float* x, const float* w, float* y, int hidden) {
  __shared__ float scratch[32];
  const float* row = x + static_cast<size_t>(blockIdx.x) * hidden;
  float s = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) s = fmaf(row[i], row[i], s);
  s = block_reduce(s, scratch, SumOp{}, 0.0f);
  const float r = rsqrtf(s / static_cast<float>(hidden) + 1e-6f);
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) y[static_cast<size_t>(blockIdx.x) * hidden + i] = row[i] * r * w[i];
}

// y[b][r] = sum_k W[r][k] * h[b][k]; one warp per output row, fixed lane order and shuffle tree.
__global__ void dec_matvec(const float* W, const float* h, float* y, int rows, int cols, int batch) {
  const int row = blockIdx.x * kWarpsPerBlock + static_cast<int>(threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;  // whole warps leave together, so the shuffles below stay full-warp
  const float* w = W + static_cast<size_t>(row) * cols;
  for (int b = 0; b < batch; ++b) {
    const float* v = h + static_cast<size_t>(b) * cols;
    float acc = 0.0f;
    for (int k = lane; k < cols; k += 32) acc = fmaf(w[k], v[k], acc);
    acc = warp_reduce(acc, SumOp{});
    if (lane == 0) y[static_cast<size_t>(b) * rows + row] = acc;
  }
}

// m[b][j] = silu(gate[b][j]) * up[b][j], with gate and up stacked in one [batch][2 * ffn] product.
__global__ void dec_silu_mul(const float* gate_up, float* m, int ffn, int batch) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ffn * batch) return;
  const int b = i / ffn, j = i % ffn;
  const float g = gate_up[static_cast<size_t>(b) * 2 * ffn + j];
  const float u = gate_up[static_cast<size_t>(b) * 2 * ffn + ffn + j];
  m[i] = g / (1.0f + expf(-g)) * u;
}

__global__ void dec_residual_add(float* x, const float* d, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] += d[i];
}

class Decode final : public IterationWorkload<Decode> {
 public:
  void setup(const Params& p) override {
    layers_ = static_cast<int>(p.get_int("layers", 1, 1024));
    hidden_ = static_cast<int>(p.get_int("hidden", 32, 16384));
    ffn_ = static_cast<int>(p.get_int("ffn", 32, 65536));
    batch_ = static_cast<int>(p.get_int("batch", 1, 64));
    const auto L = static_cast<std::size_t>(layers_), H = static_cast<std::size_t>(hidden_),
               F = static_cast<std::size_t>(ffn_), B = static_cast<std::size_t>(batch_);
    attn_ = DeviceBuffer(L * H * H * sizeof(float));
    up_ = DeviceBuffer(L * 2 * F * H * sizeof(float));
    down_ = DeviceBuffer(L * H * F * sizeof(float));
    norms_ = DeviceBuffer((2 * L + 1) * H * sizeof(float));
    x0_ = DeviceBuffer(B * H * sizeof(float));
    x_ = DeviceBuffer(B * H * sizeof(float));
    h_ = DeviceBuffer(B * H * sizeof(float));
    a_ = DeviceBuffer(B * H * sizeof(float));
    gate_up_ = DeviceBuffer(B * 2 * F * sizeof(float));
    m_ = DeviceBuffer(B * F * sizeof(float));
    out_ = DeviceBuffer(B * H * sizeof(float));
    // Weights scaled by 1/sqrt(fan-in) keep activations of order one through the layers.
    fill(attn_, 1, 0.0f, 1.0f / std::sqrt(static_cast<float>(hidden_)));
    fill(up_, 2, 0.0f, 1.0f / std::sqrt(static_cast<float>(hidden_)));
    fill(down_, 3, 0.0f, 1.0f / std::sqrt(static_cast<float>(ffn_)));
    fill(norms_, 4, 1.0f, 0.1f);
    fill(x0_, 5, 0.0f, 1.0f);
    GP_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void reset(cudaStream_t s) override {
    for (DeviceBuffer* b : {&x_, &h_, &a_, &gate_up_, &m_, &out_}) GP_CUDA_CHECK(cudaMemsetAsync(b->get(), 0, b->bytes(), s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  std::string checksum(cudaStream_t s) override {
    return OutputDigest().device(out_.get(), out_.bytes()).device(x_.get(), x_.bytes()).compute(s);
  }

  // One token step (used by IterationWorkload for every mode).
  template <typename Ops>
  void iteration(Ops& ops);

 private:
  static dim3 blocks_for(int count) { return dim3(static_cast<unsigned>((count + kThreads - 1) / kThreads)); }
  static dim3 matvec_grid(int rows) { return dim3(static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock)); }

  void fill(const DeviceBuffer& b, unsigned seed, float offset, float scale) {
    const unsigned long long count = b.bytes() / sizeof(float);
    dec_fill<<<1024, kThreads>>>(b.as<float>(), count, seed, offset, scale);
    GP_CUDA_CHECK(cudaGetLastError());
  }

  int layers_ = 0, hidden_ = 0, ffn_ = 0, batch_ = 0;
  DeviceBuffer attn_, up_, down_, norms_, x0_, x_, h_, a_, gate_up_, m_, out_;
};

template <typename Ops>
void Decode::iteration(Ops& ops) {
  const std::size_t H = static_cast<std::size_t>(hidden_), F = static_cast<std::size_t>(ffn_);
  const int bh = batch_ * hidden_;
  const dim3 block(kThreads);
  float* x = x_.as<float>();
  float* h = h_.as<float>();
  float* a = a_.as<float>();
  float* gu = gate_up_.as<float>();
  float* m = m_.as<float>();
  ops.kernel(dec_embed, blocks_for(bh), block, 0, x0_.as<float>(), x, bh);
  for (int l = 0; l < layers_; ++l) {
    const auto li = static_cast<std::size_t>(l);
    const float* norm1 = norms_.as<float>() + (2 * li) * H;
    const float* norm2 = norms_.as<float>() + (2 * li + 1) * H;
    const float* w_attn = attn_.as<float>() + li * H * H;
    const float* w_up = up_.as<float>() + li * 2 * F * H;
    const float* w_down = down_.as<float>() + li * H * F;
    ops.kernel(dec_rmsnorm, dim3(static_cast<unsigned>(batch_)), block, 0, x, norm1, h, hidden_);
    ops.kernel(dec_matvec, matvec_grid(hidden_), block, 0, w_attn, h, a, hidden_, hidden_, batch_);
    ops.kernel(dec_residual_add, blocks_for(bh), block, 0, x, a, bh);
    ops.kernel(dec_rmsnorm, dim3(static_cast<unsigned>(batch_)), block, 0, x, norm2, h, hidden_);
    ops.kernel(dec_matvec, matvec_grid(2 * ffn_), block, 0, w_up, h, gu, 2 * ffn_, hidden_, batch_);
    ops.kernel(dec_silu_mul, blocks_for(batch_ * ffn_), block, 0, gu, m, ffn_, batch_);
    ops.kernel(dec_matvec, matvec_grid(hidden_), block, 0, w_down, m, a, hidden_, ffn_, batch_);
    ops.kernel(dec_residual_add, blocks_for(bh), block, 0, x, a, bh);
  }
  const float* final_norm = norms_.as<float>() + 2 * static_cast<std::size_t>(layers_) * H;
  ops.kernel(dec_rmsnorm, dim3(static_cast<unsigned>(batch_)), block, 0, x, final_norm, out_.as<float>(), hidden_);
}

}  // namespace

GP_REGISTER_WORKLOAD(Decode, WorkloadInfo{
    "decode",
    "one transformer-decode-like token step: per layer RMSNorm, matrix-vector products, SiLU, residual adds "
    "(8 kernels a layer) at small batch; launch-bound like LLM decoding",
    {{"layers", "16", "decoder layers (8 kernels each, plus 2)"},
     {"hidden", "512", "model width"},
     {"ffn", "1024", "MLP width (the gate/up product has 2 x ffn rows)"},
     {"batch", "1", "sequences decoded together (1..64)"}}})

}  // namespace gp
