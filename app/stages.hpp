// One SSP-RK2 stage as the driver runs it: the backend calls in their order (ghosts, fluxes,
// update; with the overlap strategy the interior first, the exchange beside it, the shell
// after), each inside the phase timer named after it (app/phases.hpp; app/driver.cpp lists
// the phases).
#pragma once

#include <string>

#include "app/comm.hpp"
#include "app/timers.hpp"
#include "base/grid.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/halo.hpp"

namespace halocline {

// What a stage needs besides the backend: the ranks, the timers, and the cell regions.
struct Stages {
  Backend& backend;
  const Comm& comm;
  PhaseTimers* timers;
  PhaseClock& halo_clock;  // the halo stream's (the compute stream's unless overlapping)
  HaloSetup halo;
  Grid grid;
  CellBox all, inner, shell[6];  // every interior cell; for overlap, inner + shell = all
};

// The stages of this rank's subdomain `grid`, the cell regions made.
Stages make_stages(Backend& backend, const Comm& comm, PhaseTimers& timers, PhaseClock& halo_clock,
                   const HaloSetup& halo, const Grid& grid);

// Fills the ghosts of `slot` direction by direction (x, then y including the x ghosts, then
// z), each face from its neighbour through the halo exchange or from its boundary condition;
// phases named `prefix` + pack, d2h, mpi, h2d, unpack, ghost_fill.
void fill_ghosts(Stages& s, Slot slot, const std::string& prefix);

// One SSP-RK2 stage: stage 1 reads u0 and writes u1, stage 2 reads u1 (and u0) and writes
// the new state into a third array; finish_step() makes that array u0.
void rk_stage(Stages& s, int stage);

}  // namespace halocline
