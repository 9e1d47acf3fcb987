// Inline assembly with the operand constraints a register allocator must keep:
// an early-clobber output ("=&r"), written before the inputs are read, so it
// may share a register with none of them, even one whose last read is this
// asm; and a tied in/out operand ("+r"), read and written in one register.
// CUDA's own headers, CUB and CUTLASS are full of both.
#include <cuda_runtime.h>

extern "C" __global__ void asm_operands(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a = in[i], b = in[(i + 1) % n];
  int acc = a ^ b;
  for (int k = 0; k < 4; ++k) {
    int r;
    // b's last read in this iteration: without the early clobber, r could
    // take b's register and the mov would overwrite b before the mul reads it.
    asm("{\n\t mov.b32 %0, 7;\n\t add.s32 %0, %0, %1;\n\t mul.lo.s32 %0, %0, %2;\n\t}"
        : "=&r"(r)
        : "r"(a), "r"(b));
    asm("mad.lo.s32 %0, %1, %2, %0;" : "+r"(acc) : "r"(r), "r"(a));
    b = acc - r;
    a += k;
  }
  out[i] = acc + b;
}
