// __noinline__ device functions taking structs *by value* (lowered to .param
// .align .b8 arrays and addressed through MOV64_PARAM), returning a struct.
// Stresses: byval parameter access in a callee, aggregate returns, call ABI.
// corpus: no-verify (LLVM 22 itself fails -verify-machineinstrs here, with or without
// the plugin: MOV64_PARAM takes a symbol operand where the verifier expects a register).
#include <cuda_runtime.h>

struct Range { float lo, hi; };
struct Affine { float scale, bias; int clamp_mode; };

__device__ __noinline__ float apply(Range r, Affine f, float x) {
  float y = fmaf(x, f.scale, f.bias);
  if (f.clamp_mode == 1) y = fminf(fmaxf(y, r.lo), r.hi);
  else if (f.clamp_mode == 2) y = (y < r.lo || y > r.hi) ? 0.0f : y;
  return y;
}

__device__ __noinline__ Range widen(Range r, float by) {
  Range o;
  o.lo = r.lo - by;
  o.hi = r.hi + by;
  return o;
}

__device__ __noinline__ float sum_range(const float *v, int len, Range r) {
  float acc = 0.0f;
  for (int k = 0; k < len; ++k) acc += fminf(fmaxf(v[k], r.lo), r.hi);
  return acc;
}

extern "C" __global__ void byval_struct_calls(const float *x, float *out,
                                              int mode, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Range r = {-1.0f, 1.0f};
  Affine f = {0.5f + 0.001f * (float)(i & 15), -0.25f, mode};
  Range w = widen(r, x[i] * 0.1f);
  float y = apply(w, f, x[i]);
  int len = n - i < 8 ? n - i : 8;
  out[i] = y + sum_range(x + i, len, w);
}
