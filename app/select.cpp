// Run-time choices -> compile-time types. Every kernel is a template on the precision
// (double or float) and the layout (AoS, SoA, AoSoA); this switch is the only code that
// maps the command line's --backend, --layout and --precision onto them.
#include "app/select.hpp"

#include <stdexcept>

#include "app/problems.hpp"
#include "kernels/kokkos/kokkos_backend.hpp"
#include "layouts/layouts.hpp"

namespace halocline {

namespace {

template <class Real>
std::unique_ptr<Backend> with_layout(const Config& c, const Grid& g) {
  const BoundaryFaces bc = boundary_of(c);
  switch (c.layout) {
    case LayoutKind::AoS: return make_kokkos_backend<Real, AoS>(g, c.physics, bc);
    case LayoutKind::SoA: return make_kokkos_backend<Real, SoA>(g, c.physics, bc);
    case LayoutKind::AoSoA: return make_kokkos_backend<Real, AoSoA>(g, c.physics, bc);
  }
  throw std::logic_error("unhandled layout");
}

}  // namespace

std::unique_ptr<Backend> make_backend(const Config& c, const Grid& g) {
  switch (c.backend) {
    case BackendKind::Kokkos:
      return c.precision == Precision::FP64 ? with_layout<double>(c, g) : with_layout<float>(c, g);
  }
  throw std::logic_error("unhandled backend");
}

}  // namespace halocline
