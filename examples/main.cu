// Host driver: runs both kernels on the GPU, checks against the CPU, prints PASS/FAIL.
#include "kernels.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("FAIL: %s: %s\n", #call, cudaGetErrorString(e_));            \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main() {
  const int n = 1 << 20;
  const float a = 2.0f, w[7] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};
  std::vector<float> x(n), y(n), ref(n), out(n);
  double ref_sum = 0.0;
  for (int i = 0; i < n; ++i) { x[i] = (i % 17) * 0.25f; y[i] = (i % 5) - 2.0f; }
  for (int i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int k = 0; k < 7; ++k) acc += w[k] * x[std::min(std::max(i + k - 3, 0), n - 1)];
    ref[i] = a * x[i] + y[i] + acc;
    ref_sum += ref[i];
  }
  float *dx, *dy, *dsum, sum = 0.0f;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dsum, sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(saxpy_stencil(n, a, dx, dy));
  CHECK(reduce_sum(n, dy, dsum));
  CHECK(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&sum, dsum, sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += std::fabs(out[i] - ref[i]) > 1e-4f * (1 + std::fabs(ref[i]));
  bool sum_ok = std::fabs(sum - ref_sum) <= 1e-3 * (1 + std::fabs(ref_sum));
  std::printf("%s: %d mismatches, sum %f (expected %f)\n", bad == 0 && sum_ok ? "PASS" : "FAIL",
              bad, sum, ref_sum);
  cudaFree(dx); cudaFree(dy); cudaFree(dsum);
  return bad == 0 && sum_ok ? 0 : 1;
}
