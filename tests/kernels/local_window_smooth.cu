// Each thread smooths its own window of 24 samples in place, six passes,
// keeping edges sharp: the window is a local array indexed by the loop
// counters. The inner loop's unrolled body is over LLVM's full-unroll size,
// so stock clang leaves the window in local memory (LDL/STL); nvcc unrolls
// it and keeps the window in registers, as the plugin does. The demo's kernel
// (scripts/demo.sh).
#include <cuda_runtime.h>

#define SMOOTH_W 24

extern "C" __global__ void smooth_windows(const float *__restrict__ in, float *__restrict__ out,
                                          int windows) {
  int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= windows) return;
  float v[SMOOTH_W];
  for (int i = 0; i < SMOOTH_W; ++i) v[i] = in[w * SMOOTH_W + i];
  for (int pass = 0; pass < 6; ++pass) {
    float prev = v[0];
    for (int i = 1; i < SMOOTH_W - 1; ++i) {
      float cur = v[i];
      float edge = fabsf(v[i + 1] - prev);
      v[i] = edge > 0.5f ? cur : 0.25f * prev + 0.5f * cur + 0.25f * v[i + 1];
      prev = cur;
    }
  }
  for (int i = 0; i < SMOOTH_W; ++i) out[w * SMOOTH_W + i] = v[i];
}
