// Exclusive block scan (Blelloch work-efficient up-sweep / down-sweep) over
// 2*BLOCK elements in shared memory, also emitting the block total.
// Stresses: two nested loop phases with shifting offsets and a swap through a temp.
#include <cuda_runtime.h>

#define EB_BLOCK 128
#define EB_ELEMS (2 * EB_BLOCK)

extern "C" __global__ void scan_exclusive_blelloch(const unsigned *in,
                                                   unsigned *out,
                                                   unsigned *block_sums, int n) {
  if (blockDim.x != EB_BLOCK) return;
  __shared__ unsigned temp[EB_ELEMS];
  int tid = threadIdx.x;
  int base = blockIdx.x * EB_ELEMS;
  int a = 2 * tid, b = 2 * tid + 1;
  temp[a] = (base + a < n) ? in[base + a] : 0u;
  temp[b] = (base + b < n) ? in[base + b] : 0u;
  int offset = 1;
  for (int d = EB_ELEMS >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset <<= 1;
  }
  __syncthreads();
  if (tid == 0) {
    block_sums[blockIdx.x] = temp[EB_ELEMS - 1];
    temp[EB_ELEMS - 1] = 0u;
  }
  for (int d = 1; d < EB_ELEMS; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      unsigned t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  if (base + a < n) out[base + a] = temp[a];
  if (base + b < n) out[base + b] = temp[b];
}

// Second pass: add the exclusive scan of earlier block totals to each element.
extern "C" __global__ void scan_add_block_offsets(unsigned *data,
                                                  const unsigned *block_sums,
                                                  int nblocks, int n) {
  int blk = blockIdx.x;
  if (blk >= nblocks) return;
  unsigned off = 0;
  for (int j = 0; j < blk; ++j) off += block_sums[j];
  for (int k = threadIdx.x; k < EB_ELEMS; k += blockDim.x) {
    int gi = blk * EB_ELEMS + k;
    if (gi < n) data[gi] += off;
  }
}
