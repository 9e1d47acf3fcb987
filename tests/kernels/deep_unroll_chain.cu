// Deep unrolling: a recurrence chain unrolled 32x with 16 coefficient registers,
// and a loop whose 16x-unrolled body carries 8 interleaved integer states.
// Stresses: long dependency chains, many simultaneously live values after unroll.
#include <cuda_runtime.h>

extern "C" __global__ void unroll32_chain(const float *in, const float *coef,
                                          float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float c[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) c[k] = coef[k];
  float x = in[i];
  float y = x;
  float z = 1.0f - x;
#pragma unroll 32
  for (int k = 0; k < 32; ++k) {
    y = fmaf(y, c[k & 15], z);           // dependent on previous y
    z = fmaf(z, c[(k * 7) & 15], -y * 0.5f);  // cross-coupled with y
    y = fminf(fmaxf(y, -1e6f), 1e6f);
    z = fminf(fmaxf(z, -1e6f), 1e6f);
  }
  out[i] = y + z;
}

// Eight independent LCG-like integer states advanced 16*blocks times: the inner
// body is unrolled 16x; all states stay live across the loop and are combined.
extern "C" __global__ void unroll16_states(const unsigned *seed, unsigned *out,
                                           int blocks, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned s0 = seed[i], s1 = s0 ^ 0x9e3779b9u, s2 = s0 * 3u + 1u, s3 = ~s0;
  unsigned s4 = s0 >> 3, s5 = s0 << 5, s6 = s0 + 0x7f4a7c15u, s7 = s0 ^ 0x85ebca6bu;
  for (int b = 0; b < blocks; ++b) {
#pragma unroll 16
    for (int k = 0; k < 16; ++k) {
      s0 = s0 * 1664525u + 1013904223u;
      s1 = (s1 ^ s0) * 22695477u + 1u;
      s2 = __funnelshift_l(s2, s1, 7) + s0;
      s3 = s3 * 69069u + (s2 >> 11);
      s4 = (s4 + s3) ^ (s4 << 13);
      s5 = s5 * 134775813u + (s4 | 1u);
      s6 = __byte_perm(s6, s5, 0x5140) + (unsigned)(k + b);
      s7 = (s7 ^ s6) * 0x27d4eb2du;
    }
  }
  out[i] = s0 ^ s1 ^ s2 ^ s3 ^ s4 ^ s5 ^ s6 ^ s7;
}
