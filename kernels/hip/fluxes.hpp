// Face fluxes along one direction (MUSCL reconstruction + Riemann solver), one thread per
// face.
#pragma once

#include "kernels/hip/policies.hpp"
#include "kernels/stencil.hpp"

namespace halocline::hip {
// 256 threads per block (Box::threads) and at least 4 blocks per multiprocessor: caps the
// registers at 64 per thread so that half the warp slots can be filled (the HLLC flux
// otherwise takes ~68 and leaves only 3 blocks resident, too few to hide fp64 latency).
template <int D, class Real, class L>
__global__ void __launch_bounds__(256, 4)
    flux_kernel(Grid g, Box box, StateRef<Real, L> u, StateRef<Real, L> f, IdealGas<Real> gas, Limiter lim,
                RiemannSolver solver, const StepControl* control) {
  if (!step_planned(control)) return;
  int i, j, k;
  if (!box.cell(i, j, k)) return;
  face_flux<D>(u, f, g.index(i, j, k), g.stride[D], gas, lim, solver);
}

}  // namespace halocline::hip
