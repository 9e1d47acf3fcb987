// 2D 5-point Laplacian / Jacobi stencil on an nx*ny grid with a 16x16 shared
// tile plus a 1-cell halo; boundary cells are copied through unchanged.
// Stresses: 2D index math, halo-load predicates, and values live across a barrier.
#include <cuda_runtime.h>

#define T2 16

extern "C" __global__ void stencil2d_5pt(const float *in, float *out, int nx,
                                         int ny, float c0, float c1) {
  if (blockDim.x != T2 || blockDim.y != T2) return;
  __shared__ float s[T2 + 2][T2 + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * T2 + tx, y = blockIdx.y * T2 + ty;
  bool inside = (x < nx && y < ny);
  s[ty + 1][tx + 1] = inside ? in[(long)y * nx + x] : 0.0f;
  if (tx == 0)
    s[ty + 1][0] = (x > 0 && x - 1 < nx && y < ny) ? in[(long)y * nx + x - 1] : 0.0f;
  if (tx == T2 - 1)
    s[ty + 1][T2 + 1] = (x + 1 < nx && y < ny) ? in[(long)y * nx + x + 1] : 0.0f;
  if (ty == 0)
    s[0][tx + 1] = (y > 0 && y - 1 < ny && x < nx) ? in[(long)(y - 1) * nx + x] : 0.0f;
  if (ty == T2 - 1)
    s[T2 + 1][tx + 1] = (y + 1 < ny && x < nx) ? in[(long)(y + 1) * nx + x] : 0.0f;
  __syncthreads();
  if (!inside) return;
  float centre = s[ty + 1][tx + 1];
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[(long)y * nx + x] = centre;
    return;
  }
  float nb = s[ty][tx + 1] + s[ty + 2][tx + 1] + s[ty + 1][tx] + s[ty + 1][tx + 2];
  out[(long)y * nx + x] = c0 * centre + c1 * nb;
}
