// Mandelbrot / Julia escape-time iteration with an early exit when |z|^2 > 4,
// smooth-ish colouring of the escape count, and a periodicity check that also
// exits early. Stresses: loop with two exits, values live out of the loop.
#include <cuda_runtime.h>

extern "C" __global__ void mandelbrot(int *iters, float x0, float y0, float dx,
                                      float dy, int width, int height,
                                      int max_iter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= width || py >= height) return;
  float cr = x0 + px * dx, ci = y0 + py * dy;
  float zr = 0.0f, zi = 0.0f;
  float pr = 0.0f, pi = 0.0f;  // orbit checkpoint for periodicity detection
  int it = 0;
  for (; it < max_iter; ++it) {
    float zr2 = zr * zr, zi2 = zi * zi;
    if (zr2 + zi2 > 4.0f) break;
    float nzi = 2.0f * zr * zi + ci;
    zr = zr2 - zi2 + cr;
    zi = nzi;
    if (zr == pr && zi == pi) { it = max_iter; break; }  // periodic: inside
    if ((it & 15) == 15) { pr = zr; pi = zi; }
  }
  iters[py * width + px] = it;
}

// Julia set in double precision returning escape count and final |z|^2.
extern "C" __global__ void julia_f64(int *iters, double *mag, double cr,
                                     double ci, double scale, int width,
                                     int height, int max_iter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= width || py >= height) return;
  double zr = (px - 0.5 * width) * scale, zi = (py - 0.5 * height) * scale;
  double m = zr * zr + zi * zi;
  int it = 0;
  while (it < max_iter && m <= 4.0) {
    double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    m = zr * zr + zi * zi;
    ++it;
  }
  long idx = (long)py * width + px;
  iters[idx] = it;
  mag[idx] = m;
}
