// nvregalloc-promote-locals, on by default in the middle end: a local array
// whose offsets vary stays in local memory (a PTX __local_depot, LDL/STL in
// SASS) where nvcc keeps it in registers. Each kernel below is one pattern
// behind that; each keeps its depot with the pass off (STOCK) and has none
// with it, but the runtime-bounded array and the circular buffer, which
// only keep their accesses as few and as wide as the source has them, and
// printf's buffer, which stays in memory with wider accesses.
// REQUIRES: cuda
// RUN: %clang_cuda -fpass-plugin=%plugin -S %s -o - -Rpass=nvregalloc-promote -Rpass-missed=nvregalloc-promote \
// RUN:   2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %clang_cuda -fpass-plugin=%plugin -mllvm -nvregalloc-promote-locals=false -S %s -o - | FileCheck %s --check-prefix=STOCK
// promote=off in a function-options file turns it off for one function.
// RUN: printf '_Z11rolled_loopPKfPf promote=off\n' > %t.nvra
// RUN: %clang_cuda -fpass-plugin=%plugin -mllvm -nvregalloc-function-options=%t.nvra -S %s -o - | FileCheck %s --check-prefix=OFF
// The limits are options: with at most 8 iterations the first two loops stay rolled.
// RUN: %clang_cuda -fpass-plugin=%plugin -mllvm -nvregalloc-promote-max-trip-count=8 -S %s -o - \
// RUN:   -Rpass-missed=nvregalloc-promote 2>&1 >/dev/null | FileCheck %s --check-prefix=TRIPS
// With at most 16 bytes for a small array, the 7-word ring's loop is kept rolled.
// RUN: %clang_cuda -fpass-plugin=%plugin -mllvm -nvregalloc-promote-max-dynamic-array-bytes=16 -S %s -o - \
// RUN:   | FileCheck %s --check-prefix=SMALL

// 1. A loop of 16 iterations indexes the array by its induction variable;
// its body is over the full unroller's threshold, so it stays rolled.
// CHECK-LABEL: .entry _Z11rolled_loopPKfPf(
// CHECK-NOT:   __local_depot
// STOCK-LABEL: .entry _Z11rolled_loopPKfPf(
// STOCK:       __local_depot
// OFF-LABEL:   .entry _Z11rolled_loopPKfPf(
// OFF:         __local_depot
// OFF-LABEL:   .entry _Z11pointer_phiPKfPf(
// OFF-NOT:     __local_depot
// OFF-LABEL:   .entry _Z13address_takenPKfPf(
// REMARK-DAG:    promote-locals.cu:[[@LINE+5]]:3: remark: function _Z11rolled_loopPKfPf: loop over a 64-byte local array, 16 iterations of {{[0-9]+}} instructions: unrolled fully
// TRIPS:       remark: function _Z11rolled_loopPKfPf: loop over a 64-byte local array, 16 iterations of {{[0-9]+}} instructions: left to LLVM (too many iterations)
__global__ void rolled_loop(const float *in, float *out) {
  float acc[16];
  int t = threadIdx.x;
  for (int i = 0; i < 16; ++i) {
    float x = in[t * 16 + i];
    acc[i] = erff(x) + expf(x * 0.5f) * logf(x + 2.f);
  }
  float s = 0.f;
  for (int i = 0; i < 16; ++i)
    s += acc[i] * acc[15 - i];
  out[t] = s;
}

// 2. The same with a pointer that walks the array (a pointer PHI).
// CHECK-LABEL: .entry _Z11pointer_phiPKfPf(
// CHECK-NOT:   __local_depot
// STOCK-LABEL: .entry _Z11pointer_phiPKfPf(
// STOCK:       __local_depot
// REMARK-DAG:    promote-locals.cu:[[@LINE+5]]:3: remark: function _Z11pointer_phiPKfPf: loop over a 64-byte local array, 16 iterations of {{[0-9]+}} instructions: unrolled fully
__global__ void pointer_phi(const float *in, float *out) {
  float acc[16];
  int t = threadIdx.x;
  const float *src = in + t * 16;
  for (float *p = acc; p != acc + 16; ++p, ++src)
    *p = erff(*src) + expf(*src * 0.5f) * logf(*src + 2.f);
  float s = 0.f;
  for (int i = 0; i < 16; ++i)
    s += acc[i] * acc[15 - i];
  out[t] = s;
}

// 3. A call that takes a local's address, to a callee the inliner finds
// too big: the array must stay in memory for the callee to address it.
// CHECK-LABEL: .entry _Z13address_takenPKfPf(
// CHECK-NOT:   __local_depot
// CHECK-NOT:   call
// STOCK-LABEL: .entry _Z13address_takenPKfPf(
// STOCK:       __local_depot
// STOCK:       call
// REMARK-DAG:    promote-locals.cu:[[@LINE+13]]:3: remark: call to _Z3bigPfPKfi takes a local's address (8 bytes): inlined ({{[0-9]+}} instructions; caller {{[0-9]+}} -> about {{[0-9]+}})
// REMARK-DAG:    promote-locals.cu:[[@LINE+13]]:3: remark: call to _Z3bigPfPKfi takes a local's address (8 bytes): inlined
__device__ void big(float *r, const float *in, int t) {
  float x = in[t];
#pragma unroll
  for (int i = 0; i < 12; ++i) {
    x = erff(x) * expf(x * 0.5f) + logf(fabsf(x) + 1.f) * tanhf(x);
    r[i & 1] += x;
  }
}
__global__ void address_taken(const float *in, float *out) {
  float r[2] = {0.f, 0.f};
  int t = threadIdx.x;
  big(r, in, t);
  big(r, in, t + 1);
  out[t] = r[0] - r[1];
}

// 4. A recursive callee is never inlined for its caller's locals.
// CHECK-LABEL: _Z5countPii(
// CHECK-LABEL: .entry _Z9recursivePi(
// CHECK:       call
// REMARK-DAG:    promote-locals.cu:[[@LINE+7]]:12: remark: call to _Z5countPii takes a local's address (4 bytes): left to LLVM (recursive)
__device__ int count(int *seen, int n) {
  ++*seen;
  return n <= 1 ? *seen : count(seen, n - 1) * count(seen, n - 2);
}
__global__ void recursive(int *out) {
  int seen = 0;
  out[0] = count(&seen, out[1]);
}

// 5. An array with a runtime bound stays in memory with or without the pass;
// its loops keep one byte access per iteration rather than runtime
// unrolled or vectorized copies of them (ptxas is told so too: a rolled
// loop it would unroll), and the array is 16-byte aligned.
// CHECK-LABEL: .entry _Z13runtime_boundPKhPhi(
// CHECK:       .local .align 16 .b8 __local_depot{{[0-9]+}}[64];
// CHECK:       .pragma "nounroll";
// CHECK-COUNT-1: st.local.b8
// CHECK-NOT:   st.local
// CHECK-COUNT-1: ld.local.b8
// CHECK-NOT:   ld.local
// CHECK:       ret;
// STOCK-LABEL: .entry _Z13runtime_boundPKhPhi(
// STOCK-COUNT-2: st.local.b8
// REMARK-DAG:    promote-locals.cu:[[@LINE+5]]:3: remark: function _Z13runtime_boundPKhPhi: loop over a 64-byte local array, a trip count that is not a constant: left rolled, one access per iteration (no unrolling or vectorizing)
// REMARK-DAG:    promote-locals.cu:[[@LINE+5]]:3: remark: function _Z13runtime_boundPKhPhi: loop over a 64-byte local array, a trip count that is not a constant: left rolled
__global__ void runtime_bound(const unsigned char *in, unsigned char *out, int n) {
  unsigned char buf[64];
  int t = threadIdx.x;
  for (int i = 0; i < n; ++i) buf[i] = in[t * 64 + i] ^ 0x5a;
  for (int i = 0; i < n; ++i) out[t * 64 + i] = buf[n - 1 - i];
}

// 6. A local only ever copied whole (a float4 swap: two 16-byte memcpys),
// which SROA cannot type; the copies become float4 loads and stores.
// CHECK-LABEL: .entry _Z10swap_pairsP6float4(
// CHECK-NOT:   __local_depot
// STOCK-LABEL: .entry _Z10swap_pairsP6float4(
// STOCK:       __local_depot
__device__ void swap(float4 *a, float4 *b) {
  float4 t = *a;
  *a = *b;
  *b = t;
}
__global__ void swap_pairs(float4 *v) {
  int t = threadIdx.x;
  for (int i = 0; i < 64; ++i)
    swap(&v[(t + i) % 256], &v[(t * 7 + i) % 256]);
}

// 7. What stays in local memory is aligned to 16 bytes, as nvcc aligns it,
// so neighbouring accesses join into one 16-byte access: printf's argument
// buffer (an int and three doubles) takes three stores rather than four.
// LLVM aligns it to 8, its type's alignment, and stores each argument.
// CHECK-LABEL: .entry _Z11print_threeiPKd(
// CHECK:       .local .align 16 .b8 {{.*}}[32];
// CHECK-COUNT-3: st.local
// CHECK-NOT:   st.local
// CHECK:       vprintf
// STOCK-LABEL: .entry _Z11print_threeiPKd(
// STOCK:       .local .align 8 .b8 {{.*}}[32];
// STOCK-COUNT-4: st.local
// REMARK-DAG:  remark: function _Z11print_threeiPKd: local of 32 bytes aligned to 16 (was 8) for 16-byte accesses
__global__ void print_three(int n, const double *v) {
  int t = threadIdx.x;
  if (v[t] > n)
    printf("%d %f %f %f\n", t, v[t], v[t + 1], v[t + 2]);
}

// 8. A circular buffer walked by a wrapped index in a loop with a runtime
// trip count (a Mersenne twister's state): no affine recurrence describes
// the index, but like a constant stride it is computed from the previous
// iteration alone, and each copy unrolling makes of its accesses is another
// local access. The loop keeps its three loads and its store once, and
// ptxas is told not to unroll it; without the pass LLVM unrolls it at run
// time (and ptxas unrolls what is left its own way).
// CHECK-LABEL: .entry _Z4ringPKjPji(
// CHECK:       .pragma "nounroll";
// CHECK-COUNT-3: ld.local.b32
// CHECK-NOT:   ld.local
// CHECK:       st.local.b32
// CHECK-NOT:   st.local
// CHECK:       ret;
// STOCK-LABEL: .entry _Z4ringPKjPji(
// STOCK-NOT:   .pragma "nounroll";
// STOCK-COUNT-6: ld.local.b32
// STOCK:       ret;
// REMARK-DAG:  promote-locals.cu:[[@LINE+8]]:3: remark: function _Z4ringPKjPji: loop over a 76-byte local array, a trip count that is not a constant: left rolled, one access per iteration (no unrolling or vectorizing)
__global__ void ring(const unsigned *seed, unsigned *out, int n) {
  unsigned state[19];
  int t = threadIdx.x;
  state[0] = seed[t];
  for (int i = 1; i < 19; ++i)
    state[i] = 1812433253u * (state[i - 1] ^ (state[i - 1] >> 30)) + i;
  int at = 0;
  for (int i = 0; i < n; ++i) {
    int next = at + 1 == 19 ? 0 : at + 1;
    int far = at + 9 >= 19 ? at - 10 : at + 9;
    unsigned x = state[far] ^ ((state[at] & 0x80000000u) | (state[next] & 0x7fffffffu)) >> 1;
    state[at] = x;
    at = next;
    out[t + i * 256] = x ^ (x >> 11);
  }
}

// 9. The same with a buffer small enough to become registers (7 words):
// promote-locals-select makes it scalars, and a loop kept rolled would buy
// nothing but lost unrolling.
// CHECK-LABEL: .entry _Z10small_ringPKjPji(
// CHECK-NOT:   __local_depot
// CHECK-NOT:   .pragma "nounroll";
// CHECK:       ret;
// STOCK-LABEL: .entry _Z10small_ringPKjPji(
// STOCK:       __local_depot
// SMALL-LABEL: .entry _Z10small_ringPKjPji(
// SMALL:       __local_depot
// SMALL:       .pragma "nounroll";
// REMARK-DAG:  promote-locals.cu:[[@LINE+8]]:3: remark: function _Z10small_ringPKjPji: loop over a 28-byte local array, a trip count that is not a constant: left to LLVM (the array becomes registers all the same, by selects: kept rolled, the loop would buy nothing)
__global__ void small_ring(const unsigned *seed, unsigned *out, int n) {
  unsigned state[7];
  int t = threadIdx.x;
  state[0] = seed[t];
  for (int i = 1; i < 7; ++i)
    state[i] = 1812433253u * (state[i - 1] ^ (state[i - 1] >> 30)) + i;
  int at = 0;
  for (int i = 0; i < n; ++i) {
    int next = at + 1 == 7 ? 0 : at + 1;
    unsigned x = state[at] ^ (state[next] >> 1);
    state[at] = x;
    at = next;
    out[t + i * 256] = x ^ (x >> 11);
  }
}
