// 3D 7-point stencil on an nx*ny*nz grid; each thread marches along z keeping
// the below/centre/above values in registers (register queue along z).
// Stresses: loop-carried rotation of three values plus 64-bit plane offsets.
#include <cuda_runtime.h>

extern "C" __global__ void stencil3d_7pt(const float *in, float *out, int nx,
                                         int ny, int nz, float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny || nz <= 0) return;
  long plane = (long)nx * ny;
  long col = (long)y * nx + x;
  bool interior_xy = (x > 0 && y > 0 && x < nx - 1 && y < ny - 1);
  float below = in[col];
  float centre = below;
  float above = (nz > 1) ? in[plane + col] : centre;
  for (int z = 0; z < nz; ++z) {
    long idx = z * plane + col;
    float r;
    if (interior_xy && z > 0 && z < nz - 1) {
      float sxy = in[idx - 1] + in[idx + 1] + in[idx - nx] + in[idx + nx];
      r = c0 * centre + c1 * (sxy + below + above);
    } else {
      r = centre;
    }
    out[idx] = r;
    below = centre;
    centre = above;
    above = (z + 2 < nz) ? in[idx + 2 * plane] : centre;
  }
}
