// A kernel that indexes by its block and thread, first in the entry block,
// then again after a branch (phmm's shape), for tune.test.
__global__ void rows(int row, int col, const double *__restrict__ in,
                     const double *__restrict__ weights,
                     double *__restrict__ out) {
  int b = blockIdx.x;
  int t = threadIdx.x;
  double first = in[(row * 41 + col) * 8 + b * 2 + t];
  out[b * 2 + t] = first;
  __syncthreads();
  if (row > 0 && col > 0) {
    double s = 0.0;
    for (int k = 0; k < 2; ++k)
      s += in[((row - 1) * 41 + col) * 8 + b * 2 + k] *
           weights[(row * 4 + b) * 6 + k * 3 + t];
    out[(row * 41 + col) * 8 + b * 2 + t] = s * in[(row * 41 + col - 1) * 8 + b * 2 + t];
  }
}
