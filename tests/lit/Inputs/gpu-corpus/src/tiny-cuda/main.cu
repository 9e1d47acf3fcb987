// A benchmark for scripts/gpu-corpus's build half: a local array a loop
// walks, so that the plugin's SASS differs from stock's.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void window(const float *in, float *out) {
  float w[16];
  for (int i = 0; i < 16; ++i) w[i] = in[threadIdx.x + i];
  float s = 0.f;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) s += w[(i + j) & 15] * w[i] - j;
  out[threadIdx.x] = s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 32;
  float *in, *out;
  cudaMallocManaged(&in, (n + 16) * sizeof(float));
  cudaMallocManaged(&out, n * sizeof(float));
  for (int i = 0; i < n + 16; ++i) in[i] = i;
  window<<<1, n>>>(in, out);
  cudaDeviceSynchronize();
  printf("out[0] = %f\n", out[0]);
  return 0;
}
