// Face fluxes along one direction (MUSCL reconstruction + Riemann solver), one Kokkos
// thread per face.
#pragma once

#include "kernels/kokkos/policies.hpp"
#include "kernels/stencil.hpp"

namespace halocline::kokkos {

// The n + 1 faces of direction d bounding the cells of `box`. The flux through the low
// face of cell c is stored at c.
template <int D, class Real, class L>
void compute_fluxes_along(const Launch& on, const Grid& g, const Physics& ph, const CellBox& box,
                          const StateRef<Real, L>& u, const StateRef<Real, L>& f) {
  constexpr int d = D;
  const std::size_t s = g.stride[d], sy = g.stride[1], sz = g.stride[2];
  const IdealGas<Real> gas(static_cast<Real>(ph.gamma));
  const Limiter lim = ph.limiter;
  const RiemannSolver solver = ph.riemann;
  for_cells<FluxBounds<Real>>(
      "reconstruct_flux", on, box, d, 1, KOKKOS_LAMBDA(int i, int j, int k) {
        const std::size_t c = static_cast<std::size_t>(i) + sy * j + sz * k;
        face_flux<D>(u, f, c, s, gas, lim, solver);
      });
}

// The run-time direction -> the kernel compiled for it.
template <class Real, class L>
void compute_fluxes_along(const Launch& on, const Grid& g, const Physics& ph, const CellBox& box,
                          const StateRef<Real, L>& u, const StateRef<Real, L>& f, int d) {
  if (d == 0) compute_fluxes_along<0>(on, g, ph, box, u, f);
  if (d == 1) compute_fluxes_along<1>(on, g, ph, box, u, f);
  if (d == 2) compute_fluxes_along<2>(on, g, ph, box, u, f);
}

}  // namespace halocline::kokkos
