// GoogleTest main with the backends' runtimes (Kokkos) initialized for the whole process.
#include <gtest/gtest.h>

#include "app/select.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  halocline::RuntimeSession runtimes(argc, argv);
  return RUN_ALL_TESTS();
}
