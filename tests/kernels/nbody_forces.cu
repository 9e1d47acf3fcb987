// All-pairs N-body acceleration: positions/masses in float4 (w = mass), tiles
// of bodies staged through shared memory, softened 1/r^3 via rsqrtf, plus a
// leapfrog integration step. Stresses: float4 vector loads, 3 accumulators +
// 4-wide operands per inner iteration, unrolled inner loop.
#include <cuda_runtime.h>

#define NB_TILE 128

__device__ __forceinline__ float3 body_interaction(float4 bi, float4 bj, float3 a,
                                                   float eps2) {
  float dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
  float d2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
  float inv = rsqrtf(d2);
  float s = bj.w * inv * inv * inv;
  a.x = fmaf(dx, s, a.x);
  a.y = fmaf(dy, s, a.y);
  a.z = fmaf(dz, s, a.z);
  return a;
}

extern "C" __global__ void nbody_accel(const float4 *pos, float4 *acc, int n,
                                       float eps2) {
  if (blockDim.x != NB_TILE) return;
  if (!(eps2 > 1e-12f)) eps2 = 1e-12f;  // keep the self-interaction finite
  __shared__ float4 sh[NB_TILE];
  int i = blockIdx.x * NB_TILE + threadIdx.x;
  float4 me = (i < n) ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float3 a = make_float3(0.f, 0.f, 0.f);
  for (int base = 0; base < n; base += NB_TILE) {
    int j = base + threadIdx.x;
    sh[threadIdx.x] = (j < n) ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
    // Padding bodies have zero mass so they contribute nothing.
#pragma unroll 8
    for (int k = 0; k < NB_TILE; ++k) a = body_interaction(me, sh[k], a, eps2);
    __syncthreads();
  }
  if (i < n) acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

extern "C" __global__ void nbody_leapfrog(float4 *pos, float4 *vel,
                                          const float4 *acc, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i], v = vel[i], a = acc[i];
  v.x = fmaf(a.x, dt, v.x);
  v.y = fmaf(a.y, dt, v.y);
  v.z = fmaf(a.z, dt, v.z);
  p.x = fmaf(v.x, dt, p.x);
  p.y = fmaf(v.y, dt, p.y);
  p.z = fmaf(v.z, dt, p.z);
  pos[i] = p;
  vel[i] = v;
}
