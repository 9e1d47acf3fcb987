// Loops whose carried values rotate: Fibonacci (a,b)=(b,a+b) mod 2^32, Euclid's
// GCD (a,b)=(b,a%b), extended GCD with two swapping coefficient pairs, and a
// three-way rotation (a,b,c)=(b,c,a^b). Stresses: PHI copy cycles / parallel copies.
#include <cuda_runtime.h>

extern "C" __global__ void fib_mod(const unsigned *k, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = 0u, b = 1u;
  unsigned steps = k[i] & 0xffffu;
  for (unsigned s = 0; s < steps; ++s) {
    unsigned t = a + b;
    a = b;
    b = t;
  }
  out[i] = a;
}

extern "C" __global__ void gcd_ext(const int *xa, const int *xb, int *g,
                                   int *cx, int *cy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a = abs(xa[i] % 1000000), b = abs(xb[i] % 1000000);
  int old_r = a, r = b;
  int old_s = 1, s = 0;
  int old_t = 0, t = 1;
  while (r != 0) {
    int q = old_r / r;
    int tmp = r; r = old_r - q * r; old_r = tmp;
    tmp = s; s = old_s - q * s; old_s = tmp;
    tmp = t; t = old_t - q * t; old_t = tmp;
  }
  g[i] = old_r;
  cx[i] = old_s;
  cy[i] = old_t;
}

// Plain GCD plus a 3-cycle rotation, with the swap inside a conditional.
extern "C" __global__ void gcd_rotate3(const unsigned *xa, const unsigned *xb,
                                       unsigned *out, int iters, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = xa[i], b = xb[i];
  while (b != 0u) {
    unsigned r = a % b;
    a = b;
    b = r;
  }
  unsigned p = a, q = xa[i] ^ 0x1234u, c = xb[i] + 17u;
  for (int k = 0; k < iters; ++k) {
    unsigned np = q, nq = c, nc = p ^ q;
    if ((np ^ k) & 1u) { unsigned t = np; np = nq; nq = t; }
    p = np; q = nq; c = nc;
  }
  out[i] = a * 31u + p + 7u * q + 13u * c;
}
