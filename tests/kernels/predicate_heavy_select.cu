// Branch-free, predicate-heavy code: many comparisons combined with && / || and
// feeding selects (selp / setp chains), clamping, sign logic and a sorting
// network on 4 values expressed purely with selects.
// Stresses: predicate register class pressure and pred<->int conversions.
#include <cuda_runtime.h>

extern "C" __global__ void predicate_select(const int *a, const int *b,
                                            const float *f, int *out_i,
                                            float *out_f, int lo, int hi,
                                            int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i] >> 2, y = b[i] >> 2;  // |x|,|y| < 2^29: no overflow below
  float z = f[i];
  bool p0 = x < y, p1 = x == y, p2 = x > lo, p3 = y < hi;
  bool p4 = z > 0.0f, p5 = z < -1.0f, p6 = (x & 3) == 0, p7 = (y ^ x) < 0;
  bool q0 = (p0 && p2) || (p1 && p3);
  bool q1 = (p4 != p6) && !p7;
  bool q2 = p5 || (p2 && p3 && !p0);
  int r = q0 ? x : y;
  r = q1 ? r + 1 : r - 1;
  r = q2 ? (r < lo ? lo : (r > hi ? hi : r)) : r;
  r += (int)p0 + 2 * (int)p1 + 4 * (int)p4 + 8 * (int)p7;
  float g = p4 ? z : -z;
  g = (q0 && !q2) ? g * 2.0f : (q1 ? g + 1.0f : g - 1.0f);
  g = (g > 100.0f) ? 100.0f : ((g < -100.0f) ? -100.0f : g);
  out_i[i] = r;
  out_f[i] = g;
}

// Sort 4 ints per thread with a 5-comparator network of selects, then
// emit the median and a bitmask of which inputs were already in order.
extern "C" __global__ void select_sort4(const int4 *in, int4 *out, int *mask,
                                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int4 v = in[i];
  int m = (v.x <= v.y) | ((v.y <= v.z) << 1) | ((v.z <= v.w) << 2);
  int a = v.x, b = v.y, c = v.z, d = v.w, t0, t1;
  t0 = min(a, b); t1 = max(a, b); a = t0; b = t1;
  t0 = min(c, d); t1 = max(c, d); c = t0; d = t1;
  t0 = min(a, c); t1 = max(a, c); a = t0; c = t1;
  t0 = min(b, d); t1 = max(b, d); b = t0; d = t1;
  bool sw = b > c;
  t0 = sw ? c : b; t1 = sw ? b : c; b = t0; c = t1;
  out[i] = make_int4(a, b, c, d);
  mask[i] = m | (sw ? 8 : 0) | ((a == d) ? 16 : 0);
}
