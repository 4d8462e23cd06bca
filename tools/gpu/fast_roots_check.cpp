// kernels/fast_roots.hpp's square root and reciprocal against IEEE's (sqrtf, 1 / x) at every
// float: for each of the 2^32 bit patterns, whether the fast form says its input is in range,
// and where it does, whether its bits are IEEE's. Prints the counts and the first few
// differences; exit 0 only where no input in range differs. Built and run on an NVIDIA GPU:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I. -x cu tools/gpu/fast_roots_check.cpp -o fast_roots_check
//   ./fast_roots_check
//
// (nvcc's defaults, -prec-sqrt=true -prec-div=true and no flush to zero, make sqrtf and 1 / x
// IEEE's correctly rounded results, the host's bits.)
#include <cstdio>
#include <cstring>

#include "base/portability.hpp"
#include "kernels/fast_roots.hpp"

namespace {

struct Counts {
  unsigned long long in_range[2], differ[2];
  unsigned first[2][8];
};

__global__ void check(Counts* counts) {
  const unsigned long long total = 1ull << 32;
  unsigned long long in_range[2] = {0, 0};
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < total;
       i += 1ull * gridDim.x * blockDim.x) {
    const unsigned bits = static_cast<unsigned>(i);
    const float x = __uint_as_float(bits);
    for (int which = 0; which < 2; ++which) {
      halocline::FastFloatRoots fast;
      const float got = which == 0 ? fast.sqrt(x) : fast.reciprocal(x);
      if (!fast.in_range) continue;
      ++in_range[which];
      const float want = which == 0 ? sqrtf(x) : 1.0f / x;
      if (__float_as_uint(got) != __float_as_uint(want)) {
        const unsigned long long n = atomicAdd(&counts->differ[which], 1ull);
        if (n < 8) counts->first[which][n] = bits;
      }
    }
  }
  for (int which = 0; which < 2; ++which) atomicAdd(&counts->in_range[which], in_range[which]);
}

}  // namespace

int main() {
  Counts* counts = nullptr;
  if (cudaMallocManaged(&counts, sizeof(Counts)) != cudaSuccess) {
    std::printf("fast_roots_check: no GPU\n");
    return 2;
  }
  std::memset(counts, 0, sizeof(Counts));
  check<<<132 * 16, 256>>>(counts);
  // A launch that fails (no kernel for this GPU's architecture) leaves the counts at 0.
  if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("fast_roots_check: the kernel failed\n");
    return 2;
  }
  // The inputs each range holds: the patterns 0x0d000000 (2^-101) to 0x7f7fffff (the largest
  // float), and exponent fields 2 to 252 with either sign and every mantissa (2 * 251 * 2^23).
  const unsigned long long expected[2] = {0x7f800000ull - 0x0d000000ull, 2ull * 251 * (1ull << 23)};
  const char* names[2] = {"sqrt", "reciprocal"};
  bool ok = true;
  for (int which = 0; which < 2; ++which) {
    std::printf("%-10s inputs in range: %llu of 4294967296; differing from IEEE: %llu\n", names[which],
                counts->in_range[which], counts->differ[which]);
    for (unsigned long long n = 0; n < counts->differ[which] && n < 8; ++n) {
      const unsigned bits = counts->first[which][n];
      float x;
      std::memcpy(&x, &bits, sizeof x);
      std::printf("  differs at 0x%08x (%.9g)\n", bits, x);
    }
    if (counts->in_range[which] != expected[which])
      std::printf("  expected %llu inputs in range: not every float was checked\n", expected[which]);
    ok = ok && counts->differ[which] == 0 && counts->in_range[which] == expected[which];
  }
  return ok ? 0 : 1;
}
