// Divergent control flow: nested if/else on thread id and data, early returns,
// a dense switch (jump-table candidate), and a data-dependent loop trip count.
// Stresses: values live across many basic blocks and join points (PHIs at merges).
#include <cuda_runtime.h>

extern "C" __global__ void divergent_branches(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i] % 1000000;  // keeps all arithmetic below overflow-free
  if (v == 0) {  // early exit on data
    out[i] = -1;
    return;
  }
  int r;
  if (threadIdx.x & 1) {
    if (v > 100) {
      r = v * 3 - (int)threadIdx.x;
    } else if (v < -100) {
      r = -v + 7;
      if ((i & 7) == 3) {
        out[i] = r * 11;
        return;
      }
    } else {
      r = v ^ 0x55;
    }
  } else {
    int steps = 0;
    int x = v;
    while (x != 1 && steps < 64) {  // bounded Collatz walk
      x = (x & 1) ? 3 * (x % 1000003) + 1 : x / 2;
      ++steps;
    }
    r = steps + (threadIdx.x % 3 == 0 ? 1000 : 0);
  }
  switch ((unsigned)v % 8u) {
  case 0: r += 1; break;
  case 1: r *= 2; break;
  case 2: r -= i; break;
  case 3: r ^= 0xff; break;
  case 4: r = r * 2 + 1; break;
  case 5: r = r > 0 ? r : -r; break;
  case 6: r += v; break;
  default: r = ~r; break;
  }
  out[i] = r;
}

// Float classification with early returns and an else-if ladder.
extern "C" __global__ void divergent_classify(const float *in, float *out,
                                              int *cls, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  if (x != x) { cls[i] = 0; out[i] = 0.0f; return; }
  float y;
  int c;
  if (x < -10.0f)      { c = 1; y = -10.0f; }
  else if (x < -1.0f)  { c = 2; y = x * x; }
  else if (x < 0.0f)   { c = 3; y = -x; }
  else if (x < 1.0f)   { c = 4; y = sqrtf(x); }
  else if (x < 10.0f)  { c = 5; y = 1.0f / x; }
  else                 { c = 6; y = __logf(x); }
  if ((i & 3) == 0 && c > 3) y *= 0.5f;
  cls[i] = c;
  out[i] = y;
}
