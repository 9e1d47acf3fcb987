// Bitonic sorting network over 512 keys (with payload values) in shared memory;
// each block sorts its own 512-element segment ascending, padding with UINT_MAX.
// Stresses: nested stage loops, XOR partner indices, compare-and-swap of pairs.
#include <cuda_runtime.h>

#define BS_N 512
// blockDim.x == BS_N / 2: each thread handles one compare-exchange per step.

extern "C" __global__ void bitonic_sort512(unsigned *keys, int *vals, int n) {
  if (blockDim.x != BS_N / 2) return;
  __shared__ unsigned sk[BS_N];
  __shared__ int sv[BS_N];
  int base = blockIdx.x * BS_N;
  for (int k = threadIdx.x; k < BS_N; k += blockDim.x) {
    bool ok = base + k < n;
    sk[k] = ok ? keys[base + k] : 0xffffffffu;
    sv[k] = ok ? vals[base + k] : -1;
  }
  __syncthreads();
  for (unsigned size = 2; size <= BS_N; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      unsigned t = threadIdx.x;
      unsigned i = 2 * t - (t & (stride - 1));  // lower element of the pair
      unsigned j = i + stride;
      bool ascending = ((i & size) == 0);
      unsigned ki = sk[i], kj = sk[j];
      int vi = sv[i], vj = sv[j];
      bool swap = ascending ? (ki > kj) : (ki < kj);
      if (swap) {
        sk[i] = kj; sk[j] = ki;
        sv[i] = vj; sv[j] = vi;
      }
      __syncthreads();
    }
  }
  for (int k = threadIdx.x; k < BS_N; k += blockDim.x) {
    if (base + k < n) {
      keys[base + k] = sk[k];
      vals[base + k] = sv[k];
    }
  }
}
