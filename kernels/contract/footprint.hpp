// What a backend holds in memory for one rank's subdomain, counted by one rule before anything
// is allocated: each backend checks its device against it (and reports what it made, which
// is this count: Contract.BytesAllocatedAreTheFootprint), and the run's memory plan
// (app/resources.cpp) sizes the grids it advises by it, so that "the largest grid that fits
// the device" is a grid the backend then accepts. In 128-bit integers: the plan counts grids
// whose bytes overflow size_t, to refuse them with the right numbers.
#pragma once

#include <array>
#include <cstddef>

#include "base/grid.hpp"
#include "kernels/contract/state_slabs.hpp"
#include "kernels/halo.hpp"
#include "kernels/stencil.hpp"
#include "layouts/layouts.hpp"

namespace halocline {

using ByteCount = unsigned __int128;

// What a backend makes beside the solver's arrays and the halo's buffers: its own numbers,
// declared beside its constructor (hip_device_scratch, kokkos_device_scratch).
struct BackendScratch {
  int slab_buffers = 0;           // slab buffers its read_state or write_state makes at once
  std::size_t control_bytes = 0;  // its small blocks: the step's control, the rate's max, the sums
};

struct Footprint {
  ByteCount arrays = 0;        // the solver's state-sized arrays (solver_arrays of them)
  ByteCount control = 0;       // BackendScratch::control_bytes
  ByteCount halo_buffers = 0;  // the halo exchange's send and receive buffers
  ByteCount slab_buffers = 0;  // made while a file is written or a restart read, freed after
  // In host memory, beside the above: the staged halo strategies' copies of the halo buffers
  // (sync, overlap: HaloBuffers::configure).
  ByteCount host_halo_buffers = 0;
  // What the backend holds between steps: its bytes_allocated().
  ByteCount resident() const { return arrays + control + halo_buffers; }
  // The most it holds at once: what its memory must have room for.
  ByteCount peak() const { return resident() + slab_buffers; }
};

// `bytes` as a size_t for a device's check: a count beyond size_t saturates (it fits no device).
inline std::size_t saturated_bytes(ByteCount bytes) {
  const std::size_t most = ~std::size_t(0);
  return bytes > most ? most : static_cast<std::size_t>(bytes);
}

// The halo buffers for the directions of `exchanged`: a send and a receive buffer for each
// face of each (HaloBuffers::configure makes both faces' where either is exchanged).
inline ByteCount halo_buffer_bytes(const Grid& g, const std::array<bool, 3>& exchanged, std::size_t value_bytes) {
  ByteCount bytes = 0;
  for (int d = 0; d < 3; ++d)
    if (exchanged[d]) bytes += 4 * halo_message_size<ByteCount>(g, d) * value_bytes;
  return bytes;
}

// The footprint of subdomain `g` in layout `layout` with values of `value_bytes`: u0, u1,
// unew and, with `flux_arrays` (the split kernels), a flux array per active direction; the
// halo buffers of the directions of `exchanged`, and their host copies where the halo is
// `staged`; the backend's `scratch`, its slab buffers each holding SlabPlan's largest slab in
// the run's precision. g.ncells is not read (it may have overflowed for a grid the plan refuses).
inline Footprint footprint_of(const Grid& g, LayoutKind layout, std::size_t value_bytes, bool flux_arrays,
                              const std::array<bool, 3>& exchanged, bool staged, const BackendScratch& scratch) {
  ByteCount cells = 1;
  for (int d = 0; d < 3; ++d) cells *= static_cast<ByteCount>(g.np[d]);
  Footprint f;
  f.arrays = static_cast<ByteCount>(solver_arrays(g, flux_arrays)) * storage_values(layout, cells) * value_bytes;
  f.control = scratch.control_bytes;
  f.halo_buffers = halo_buffer_bytes(g, exchanged, value_bytes);
  f.host_halo_buffers = staged ? f.halo_buffers : 0;
  f.slab_buffers =
      static_cast<ByteCount>(scratch.slab_buffers) * kNumVars * SlabPlan{g}.max_cells<ByteCount>() * value_bytes;
  return f;
}

}  // namespace halocline
