// 64-bit integer math: splitmix64 and xorshift64* hashing, __umul64hi /
// __mul64hi, 64-bit division and modulo by runtime divisors, 64-bit rotates.
// Stresses: 64-bit register pairs, long dependent integer chains, div/rem calls.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__device__ __forceinline__ uint64_t xorshift64star(uint64_t &s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s * 0x2545F4914F6CDD1Dull;
}

__device__ __forceinline__ uint64_t rotl64(uint64_t x, int r) {
  return (x << (r & 63)) | (x >> ((64 - r) & 63));
}

extern "C" __global__ void hash64_mix(const uint64_t *keys, uint64_t *out,
                                      int rounds, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t h = splitmix64(keys[i]);
  uint64_t s = h | 1ull;
  for (int r = 0; r < rounds; ++r) {
    uint64_t x = xorshift64star(s);
    h = rotl64(h ^ x, 31 + (r & 7)) * 0x9E3779B97F4A7C15ull;
    h ^= __umul64hi(h, x);
  }
  out[i] = h;
}

// Fixed-point and division tests: quotient/remainder by per-element divisors,
// signed high product, and a 128-bit style product split into hi/lo words.
extern "C" __global__ void int64_divmod(const long long *a, const long long *d,
                                        long long *q, long long *r,
                                        unsigned long long *mulhi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = a[i], y = d[i];
  if (y == 0) y = 1;
  if (y == -1) y = 3;  // avoid LLONG_MIN / -1 overflow
  q[i] = x / y;
  r[i] = x % y;
  unsigned long long ux = (unsigned long long)x, uy = (unsigned long long)y;
  unsigned long long lo = ux * uy, hi = __umul64hi(ux, uy);
  long long shi = __mul64hi(x, y);
  unsigned long long uq = ux / (uy | 1ull);
  mulhi[i] = hi ^ (lo >> 7) ^ (unsigned long long)shi ^ uq;
}
