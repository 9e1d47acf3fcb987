// nvregalloc-tune: a kernel whose ptxas registers are its callee's. ptxas compiles
// a __noinline__ function into each kernel that calls it and reports no
// figures of its own, so the callee must take the choice of its caller.
__device__ __noinline__ float blend(const float *a, const float *b, const float *c, const float *d,
                                    const float *e, const float *f, const float *g, const float *h,
                                    int n, int stride) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int i = 0; i < n; i += stride) {
    s0 += a[i] * b[i] + c[i + 1];
    s1 += d[i] * e[i] - f[i + 2];
    s2 += g[i] * h[i] + a[i + 3];
    s3 += b[i + 4] * c[i] - d[i + 5];
  }
  return s0 * s1 + s2 * s3;
}

__global__ void blend_kernel(float *out, const float *a, const float *b, const float *c, const float *d,
                             const float *e, const float *f, const float *g, const float *h, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = blend(a + t, b + t, c + t, d + t, e + t, f + t, g + t, h + t, n, blockDim.x * gridDim.x);
}
