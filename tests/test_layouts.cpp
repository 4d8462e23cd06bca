// Unit tests of the layouts' accessors, against the documented formulas.
#include <gtest/gtest.h>

#include <set>

#include "layouts/layouts.hpp"

namespace hc = halocline;

template <class L>
class LayoutsEachKind : public ::testing::Test {};
using AllLayouts = ::testing::Types<hc::AoS, hc::SoA, hc::AoSoA>;
TYPED_TEST_SUITE(LayoutsEachKind, AllLayouts);

// Every (variable, cell) pair maps to its own slot inside the storage.
TYPED_TEST(LayoutsEachKind, OffsetsAreABijectionIntoStorage) {
  for (std::size_t ncells : {1u, 7u, 8u, 9u, 100u}) {
    std::set<std::size_t> seen;
    for (std::size_t c = 0; c < ncells; ++c)
      for (int v = 0; v < hc::kNumVars; ++v) {
        const std::size_t off = TypeParam::offset(v, c, ncells);
        EXPECT_LT(off, TypeParam::storage_size(ncells));
        EXPECT_TRUE(seen.insert(off).second) << "v=" << v << " c=" << c;
      }
  }
}

TEST(Layouts, AddressesMatchTheDocumentedFormulas) {
  const std::size_t n = 100;
  EXPECT_EQ(hc::AoS::offset(3, 10, n), 53u);               // cell-major
  EXPECT_EQ(hc::SoA::offset(3, 10, n), 310u);              // variable-major
  EXPECT_EQ(hc::AoSoA::offset(3, 10, n), 40u + 24u + 2u);  // tile 1 (40), var 3 (24), lane 2
  EXPECT_EQ(hc::AoSoA::storage_size(9), 16u * 5u);         // padded to whole tiles
}
