// Stream compaction: keep elements satisfying a predicate, preserving order.
// Pass 1 counts survivors per block (ballot+popc), pass 2 scans block counts
// serially, pass 3 computes each survivor's slot with a warp-ballot prefix plus
// a shared-memory scan of warp totals. Stresses: mixed scan/ballot/scatter.
#include <cuda_runtime.h>

#define SC_BLOCK 256
#define SC_WARPS (SC_BLOCK / 32)

__device__ __forceinline__ bool keep(float v, float thr) { return v > thr; }

extern "C" __global__ void compact_count(const float *in, unsigned *block_counts,
                                         float thr, int n) {
  if (blockDim.x != SC_BLOCK) return;
  __shared__ unsigned wc[SC_WARPS];
  int i = blockIdx.x * SC_BLOCK + threadIdx.x;
  bool p = (i < n) && keep(in[i], thr);
  unsigned m = __ballot_sync(0xffffffffu, p);
  if ((threadIdx.x & 31) == 0) wc[threadIdx.x >> 5] = __popc(m);
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned s = 0;
    for (int w = 0; w < SC_WARPS; ++w) s += wc[w];
    block_counts[blockIdx.x] = s;
  }
}

// Exclusive scan of block counts in place by one thread; also writes the total.
extern "C" __global__ void compact_scan_counts(unsigned *counts, unsigned *total,
                                               int nblocks) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  unsigned run = 0;
  for (int b = 0; b < nblocks; ++b) {
    unsigned c = counts[b];
    counts[b] = run;
    run += c;
  }
  *total = run;
}

extern "C" __global__ void compact_scatter(const float *in, const unsigned *offsets,
                                           float *out, int *out_idx, float thr,
                                           int n) {
  if (blockDim.x != SC_BLOCK) return;
  __shared__ unsigned woff[SC_WARPS];
  int i = blockIdx.x * SC_BLOCK + threadIdx.x;
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  float v = (i < n) ? in[i] : 0.0f;
  bool p = (i < n) && keep(v, thr);
  unsigned m = __ballot_sync(0xffffffffu, p);
  if (lane == 0) woff[wid] = __popc(m);
  __syncthreads();
  if (threadIdx.x == 0) {  // exclusive scan of the 8 warp counts
    unsigned run = 0;
    for (int w = 0; w < SC_WARPS; ++w) { unsigned c = woff[w]; woff[w] = run; run += c; }
  }
  __syncthreads();
  if (p) {
    unsigned slot = offsets[blockIdx.x] + woff[wid] + __popc(m & ((1u << lane) - 1u));
    out[slot] = v;
    out_idx[slot] = i;
  }
}
