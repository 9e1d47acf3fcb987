// Radix-2 decimation-in-time FFT on float2 complex data: one 256-point FFT per
// block in shared memory (bit-reversed load, log2(N) butterfly stages), plus a
// standalone single-stage butterfly kernel over global memory.
// Stresses: complex multiply (4 muls/2 adds), sincosf twiddles, paired registers.
#include <cuda_runtime.h>

#define FFT_N 256
#define FFT_LOG 8

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

extern "C" __global__ void fft256_shared(const float2 *in, float2 *out, int nffts) {
  if (blockDim.x != FFT_N / 2) return;
  int f = blockIdx.x;
  if (f >= nffts) return;
  __shared__ float2 s[FFT_N];
  const float2 *src = in + (long)f * FFT_N;
  for (int i = threadIdx.x; i < FFT_N; i += blockDim.x)
    s[__brev((unsigned)i) >> (32 - FFT_LOG)] = src[i];
  __syncthreads();
  for (int st = 1; st <= FFT_LOG; ++st) {
    int m = 1 << st, half = m >> 1;
    int t = threadIdx.x;
    int grp = t / half, pos = t % half;
    int i0 = grp * m + pos, i1 = i0 + half;
    float sn, cs;
    sincosf(-6.2831853071795865f * (float)pos / (float)m, &sn, &cs);
    float2 w = make_float2(cs, sn);
    float2 a = s[i0], b = cmul(w, s[i1]);
    __syncthreads();
    s[i0] = make_float2(a.x + b.x, a.y + b.y);
    s[i1] = make_float2(a.x - b.x, a.y - b.y);
    __syncthreads();
  }
  float2 *dst = out + (long)f * FFT_N;
  for (int i = threadIdx.x; i < FFT_N; i += blockDim.x) dst[i] = s[i];
}

// One butterfly stage of size `span` applied in place to n complex values
// with precomputed twiddles tw[0..span/2).
extern "C" __global__ void fft_stage(float2 *data, const float2 *tw, int span, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int half = span >> 1;
  if (half <= 0 || 2 * t >= n) return;
  int grp = t / half, pos = t % half;
  int i0 = grp * span + pos, i1 = i0 + half;
  if (i1 >= n) return;
  float2 a = data[i0], b = cmul(tw[pos], data[i1]);
  data[i0] = make_float2(a.x + b.x, a.y + b.y);
  data[i1] = make_float2(a.x - b.x, a.y - b.y);
}
