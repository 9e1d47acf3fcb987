// A warp reduction of a five-field struct through CUB's WarpReduce (the
// shape of HeCBench's kurtosis): each shuffle stage carries every field and
// a copy of it side by side, so PHIs come in twins.
#include <cub/warp/warp_reduce.cuh>

struct Moments {
  int n;
  float mean, m2, m3, m4;
};

struct CombineMoments {
  __device__ Moments operator()(const Moments &a, const Moments &b) const {
    Moments r;
    r.n = a.n + b.n;
    float n = (float)r.n, delta = b.mean - a.mean, d2 = delta * delta;
    r.mean = a.mean + delta * (float)b.n / n;
    r.m2 = a.m2 + b.m2 + d2 * (float)a.n * (float)b.n / n;
    r.m3 = a.m3 + b.m3 + delta * d2 * (float)(a.n - b.n) / (n * n) +
           3.0f * delta * (a.n * b.m2 - b.n * a.m2) / n;
    r.m4 = a.m4 + b.m4 + 6.0f * d2 * (a.m2 + b.m2) / n;
    return r;
  }
};

extern "C" __global__ void warp_reduce_moments(const float *in, Moments *out, int len) {
  using WarpReduce = cub::WarpReduce<Moments>;
  __shared__ typename WarpReduce::TempStorage temp[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Moments m = {0, 0.0f, 0.0f, 0.0f, 0.0f};
  for (; i < len; i += gridDim.x * blockDim.x) {
    float x = in[i];
    m = CombineMoments()(m, Moments{1, x, 0.0f, 0.0f, 0.0f});
  }
  int warp = threadIdx.x / 32;
  Moments total = WarpReduce(temp[warp]).Reduce(m, CombineMoments());
  if (threadIdx.x % 32 == 0) out[blockIdx.x * (blockDim.x / 32) + warp] = total;
}
