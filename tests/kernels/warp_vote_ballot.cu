// Warp vote intrinsics: __ballot_sync, __any_sync, __all_sync, __match_any_sync
// and __popc/__ffs used to count, rank and group lanes by predicate and key.
// Stresses: predicate registers converted to/from 32-bit masks, bit-manipulation.
#include <cuda_runtime.h>

// For each element: its rank among the lanes of its warp whose value is > thr,
// the warp's count of such lanes, and flags from any/all votes.
extern "C" __global__ void warp_vote_rank(const int *in, int *rank, int *count,
                                          int *flags, int thr, int n) {
  if (blockDim.x & 31) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  bool valid = i < n;
  int v = valid ? in[i] : 0;
  bool pred = valid && v > thr;
  unsigned mask = __ballot_sync(0xffffffffu, pred);
  unsigned below = mask & ((1u << lane) - 1u);
  int any_neg = __any_sync(0xffffffffu, valid && v < 0);
  int all_even = __all_sync(0xffffffffu, !valid || (v & 1) == 0);
  int leader = __ffs(mask) - 1;  // -1 when no lane passes
  if (valid) {
    rank[i] = pred ? __popc(below) : -1;
    count[i] = __popc(mask);
    flags[i] = (any_neg ? 1 : 0) | (all_even ? 2 : 0) | ((leader == lane) ? 4 : 0);
  }
}

// Group lanes with equal keys: each lane learns how many lanes share its key,
// and the group leader (lowest lane) accumulates the group's value sum.
extern "C" __global__ void warp_match_groups(const unsigned *keys, const int *vals,
                                             int *group_size, int *group_sum,
                                             int n) {
  if (blockDim.x & 31) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  bool valid = i < n;
  // Invalid lanes get a key no valid lane can have (bit 31 set via lane mix).
  unsigned key = valid ? (keys[i] & 0x7fffffffu) : (0x80000000u | lane);
  int val = valid ? vals[i] : 0;
  unsigned peers = __match_any_sync(0xffffffffu, key);
  int leader = __ffs(peers) - 1;
  int sum = 0;
  for (int l = 0; l < 32; ++l) {
    int other = __shfl_sync(0xffffffffu, val, l);
    if (peers & (1u << l)) sum += other;
  }
  if (valid) {
    group_size[i] = __popc(peers);
    group_sum[i] = (lane == leader) ? sum : 0;
  }
}
