// 256-bin byte histogram: per-block privatised counts with atomicAdd in shared
// memory, then merged into the global histogram with atomicAdd.
// Stresses: atomics' return-value-free forms, 4-way unpacking of a 32-bit word.
#include <cuda_runtime.h>
#include <stdint.h>

#define NBINS 256

extern "C" __global__ void histogram256(const uint8_t *data, unsigned *hist,
                                        int n) {
  __shared__ unsigned local[NBINS];
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x) {
    unsigned c = local[b];
    if (c) atomicAdd(&hist[b], c);
  }
}

// Words version: each 32-bit word contributes 4 bytes; bins are weighted by a
// per-byte-position weight and a data-dependent bin count (nbins <= 256).
extern "C" __global__ void histogram_words(const uint32_t *words, unsigned *hist,
                                           int nwords, int nbins) {
  __shared__ unsigned local[NBINS];
  if (nbins <= 0 || nbins > NBINS) return;
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += stride) {
    uint32_t w = words[i];
    unsigned b0 = (w & 0xffu) % nbins, b1 = ((w >> 8) & 0xffu) % nbins;
    unsigned b2 = ((w >> 16) & 0xffu) % nbins, b3 = (w >> 24) % nbins;
    atomicAdd(&local[b0], 1u);
    atomicAdd(&local[b1], 2u);
    atomicAdd(&local[b2], 3u);
    atomicAdd(&local[b3], 4u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}
