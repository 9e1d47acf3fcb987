// Narrow integer arithmetic: 16-bit (short) saturating add and fixed-point Q15
// multiply, 8-bit (signed/unsigned char) quantisation and a dp4a-style packed
// dot product. Stresses: .b16 registers, sign/zero extension and truncation.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ short sat16(int v) {
  return (short)(v > 32767 ? 32767 : (v < -32768 ? -32768 : v));
}

// Q15 fixed point: out = sat(a + b), prod = sat((a*b) >> 15) with rounding.
extern "C" __global__ void q15_ops(const short *a, const short *b, short *sum,
                                   short *prod, unsigned short *absdiff, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  short x = a[i], y = b[i];
  sum[i] = sat16((int)x + (int)y);
  prod[i] = sat16(((int)x * (int)y + (1 << 14)) >> 15);
  int d = (int)x - (int)y;
  absdiff[i] = (unsigned short)(d < 0 ? -d : d);
}

// Quantise floats to int8 with a per-tensor scale, and dequantise back.
extern "C" __global__ void quantize_int8(const float *in, int8_t *q, float *deq,
                                         float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = (scale > 0.0f) ? scale : 1.0f;
  float v = rintf(in[i] / s);
  v = fminf(fmaxf(v, -128.0f), 127.0f);
  int8_t qi = (int8_t)(int)v;
  q[i] = qi;
  deq[i] = (float)qi * s;
}

// dp4a via inline PTX (clang cannot resolve nvcc's __dp4a implementation).
__device__ __forceinline__ int dp4a_s32(int a, int b, int c) {
  int d;
  asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// Dot products of int8 vectors of length 4*len, packed 4 per 32-bit word,
// computed once with dp4a and once by explicit byte unpacking (must agree).
extern "C" __global__ void dot_int8(const int *a, const int *b, int *out_dp4a,
                                    int *out_manual, int len, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n || len <= 0) return;
  int acc = 0, acc2 = 0;
  for (int k = 0; k < len; ++k) {
    int wa = a[(long)t * len + k], wb = b[(long)t * len + k];
    acc = dp4a_s32(wa, wb, acc);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int8_t ca = (int8_t)(wa >> (8 * j)), cb = (int8_t)(wb >> (8 * j));
      acc2 += (int)ca * (int)cb;
    }
  }
  out_dp4a[t] = acc;
  out_manual[t] = acc2;
}

// Byte-wise unsigned saturating add on uchar4 and a 16-bit checksum.
extern "C" __global__ void uchar4_sat_add(const uchar4 *a, const uchar4 *b,
                                          uchar4 *c, unsigned short *csum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 x = a[i], y = b[i];
  unsigned char r0 = (unsigned char)min(x.x + y.x, 255), r1 = (unsigned char)min(x.y + y.y, 255);
  unsigned char r2 = (unsigned char)min(x.z + y.z, 255), r3 = (unsigned char)min(x.w + y.w, 255);
  c[i] = make_uchar4(r0, r1, r2, r3);
  unsigned short s = (unsigned short)(r0 + (r1 << 4)) ^ (unsigned short)(r2 * 257u + r3);
  csum[i] = s;
}
