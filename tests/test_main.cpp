// GoogleTest main with Kokkos initialized for the whole process (a backend may be made only
// between Kokkos::initialize and Kokkos::finalize).
#include <gtest/gtest.h>

#include "kernels/kokkos/kokkos_backend.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  halocline::KokkosSession kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
