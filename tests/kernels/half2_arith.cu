// Packed half-precision (f16x2, the __half2 layout: low half = .x) arithmetic:
// axpy, a dot product with f16x2 FMA, and ReLU/min/max, via inline PTX helpers
// (<cuda_fp16.h> needs CCCL's <nv/target>, absent here).
// Stresses: 32-bit registers holding packed halves, cvt f32<->f16 packing.
#include <cuda_runtime.h>
#include <stdint.h>

typedef uint32_t h2_t;  // two IEEE binary16 values packed like __half2

__device__ __forceinline__ h2_t h2_fma(h2_t a, h2_t b, h2_t c) {
  h2_t d;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ h2_t h2_mul(h2_t a, h2_t b) {
  h2_t d;
  asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ h2_t h2_max(h2_t a, h2_t b) {
  h2_t d;
  asm("max.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ h2_t h2_from_floats(float lo, float hi) {
  h2_t d;  // cvt.rn.f16x2.f32 d, hi, lo puts `hi` in the upper half
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}
__device__ __forceinline__ float2 h2_to_float2(h2_t v) {
  float lo, hi;
  asm("{\n\t.reg .f16 l, h;\n\tmov.b32 {l, h}, %2;\n\t"
      "cvt.f32.f16 %0, l;\n\tcvt.f32.f16 %1, h;\n\t}"
      : "=f"(lo), "=f"(hi) : "r"(v));
  return make_float2(lo, hi);
}

// y = alpha*x + y on packed pairs, then ReLU.
extern "C" __global__ void h2_axpy_relu(const h2_t *x, h2_t *y, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  h2_t a = h2_from_floats(alpha, alpha);
  h2_t r = h2_fma(a, x[i], y[i]);
  y[i] = h2_max(r, 0u);
}

// Per-thread dot product of `len` packed pairs, accumulating in f16x2 for
// blocks of 8 and flushing to f32 to limit rounding error.
extern "C" __global__ void h2_dot(const h2_t *a, const h2_t *b, float *out,
                                  int len, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n || len <= 0) return;
  const h2_t *pa = a + (long)t * len, *pb = b + (long)t * len;
  float total = 0.0f;
  for (int k0 = 0; k0 < len; k0 += 8) {
    h2_t acc = 0u;
    int kend = k0 + 8 < len ? k0 + 8 : len;
    for (int k = k0; k < kend; ++k) acc = h2_fma(pa[k], pb[k], acc);
    float2 f = h2_to_float2(acc);
    total += f.x + f.y;
  }
  out[t] = total;
}

// Complex-style mix: (x*x, y*y) squared magnitudes and float conversion.
extern "C" __global__ void h2_square_to_f32(const h2_t *in, float2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  h2_t v = in[i];
  float2 f = h2_to_float2(h2_mul(v, v));
  out[i] = make_float2(f.x + f.y, f.x - f.y);
}
