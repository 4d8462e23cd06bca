// The backend contract: what the shared driver (app/driver.cpp and app/simulation_*.cpp) asks of a
// programming model.
//
// A backend owns the state in its own memory, in one layout and precision, and runs the
// kernels of kernels/stencil.hpp over it. The driver owns the algorithm: the order of the
// SSP-RK2 stages, the halo exchange and its MPI calls, the time step, output, and every
// timer. Each programming model implements this interface in its own folder under
// kernels/ (kernels/kokkos/, kernels/hip/) and is chosen in app/select.cpp.
//
// This folder (kernels/contract/) is the leaf the layers meet at, as BabelStream's Stream.h:
// it includes the standard library and the physics headers of kernels/ only, never app/,
// io/ or a backend (tools/check_layers.py enforces it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/contract/errors.hpp"
#include "kernels/contract/halo_messages.hpp"
#include "kernels/contract/phase_clock.hpp"
#include "kernels/contract/state_slabs.hpp"
#include "kernels/contract/strategy.hpp"
#include "kernels/contract/transfers.hpp"
#include "kernels/halo.hpp"
#include "kernels/initial_state.hpp"
#include "kernels/step_control.hpp"
#include "kernels/totals.hpp"

namespace halocline {

// What the backend runs on, for the report.
struct DeviceInfo {
  std::string kind;              // "cpu" or "gpu"
  std::string name;              // device or execution-space name
  std::size_t memory_bytes = 0;  // device memory (0: host memory)
  int compute_units = 0;         // SMs / CUs, or host threads
  int devices_visible = 1;       // GPUs of this kind the runtime shows this process (1 on the host)
  int device_index = 0;          // this GPU's index among them (0 on the host)
  std::string runtime_version, driver_version;
  // Where the runtime tells (GPUs; 0 or empty where not): peak clocks, memory bus, the
  // last-level cache, and the PCI address (app/info.cpp reads the link and NUMA node of
  // that address from Linux's sysfs).
  int clock_khz = 0, memory_clock_khz = 0, memory_bus_bits = 0;
  std::size_t cache_bytes = 0;
  std::string pci_bus_id;
};

// The state arrays of SSP-RK2 the driver names: the solution u0 and the stage array u1.
// A backend keeps a third array, unew, that stage 2 writes the new solution into, and
// swaps the roles of u0 and unew after every step (finish_step): the step's input is
// never overwritten by the step itself (see select_after_fault()).
enum class Slot { U0 = 0, U1 = 1 };

// The two states a numerical fault leaves (see Backend::select_after_fault).
enum class AfterFault { Broken, LastGood };

// The backend's two queues of work: GPU streams, or Kokkos execution-space instances.
enum class Stream { Compute, Halo };

// What the halo exchange of a run is (app/select.cpp's choose_halo decides it).
struct HaloSetup {
  HaloStrategy strategy = HaloStrategy::None;
  bool exchanged[3][2] = {{false, false}, {false, false}, {false, false}};
  HostMemory host_memory = HostMemory::Pinned;  // of the staging buffers
  bool any(int d) const { return exchanged[d][0] || exchanged[d][1]; }
  bool staged() const { return strategy == HaloStrategy::Sync || strategy == HaloStrategy::Overlap; }
  // The messages of direction d in the buffers given (send and receive per face).
  HaloMessages messages(int d, void* const send[2], void* const receive[2], std::size_t bytes) const {
    HaloMessages m;
    for (int side = 0; side < 2; ++side) {
      m.exchanged[side] = exchanged[d][side];
      m.send[side] = send[side];
      m.receive[side] = receive[side];
    }
    m.bytes = bytes;
    return m;
  }
};

class Backend {
 public:
  virtual ~Backend() = default;

  // e.g. "kokkos (Serial)": the model and where it runs.
  virtual std::string description() const = 0;

  // Makes the initial state of `ic` (kernels/initial_state.hpp) in u0 where the state lives,
  // from each cell's global index: no copy from the host.
  virtual void make_initial_state(const InitialCondition& ic) = 0;

  // Hands u0's interior to `take` slab by slab (kernels/contract/state_slabs.hpp), in order
  // of z, as the state is after the work submitted so far; the next slab is on its way while
  // `take` works. The host holds a few slabs at a time, never the whole state: how files are
  // written. `take` may throw; the backend is then left ready for the next call.
  // Values are converted from the backend's precision; `purpose` says how the copies are
  // counted (kernels/contract/transfers.hpp). `slab_bytes`: SlabPlan's (tests cut small
  // grids into several slabs). There is no whole-state copy: no caller may need one.
  virtual void read_state(const SlabSink& take, Purpose purpose = Purpose::Output,
                          std::size_t slab_bytes = SlabPlan::kSlabBytes) = 0;
  // The reverse, for a restart: fills u0's interior slab by slab, in order of z, from
  // `give`, converting to the backend's precision; the host holds a slab at a time (the
  // host owner model's staging buffer, its state, is written too).
  virtual void write_state(const SlabSource& give, std::size_t slab_bytes = SlabPlan::kSlabBytes) = 0;

  // Owner models that keep the state away from the device between steps move it at the
  // start and end of every step (the host owner's naive port; managed prefetches).
  virtual bool moves_state_each_step() const { return false; }
  virtual void upload_state() {}
  virtual void download_state() {}

  // ---- The time-step controller (kernels/step_control.hpp), kept where the state is ----
  // Starts the controller at `initial` (time, step, stop, CFL).
  virtual void reset_control(const StepControl& initial) = 0;
  // Moves the stop: the run will not advance past t_stop or step_limit.
  virtual void set_stop(double t_stop, long step_limit) = 0;
  // The time step, made where the state is: the max signal rate over the interior of u0 (a
  // reduction, or the one the last step's fused stage 2 folded in), through the ranks' max
  // (set_global_max), then dt.
  virtual void plan_step() = 0;
  // t += dt, step += 1 (finish_step()), publish the status for the host, and swap the
  // roles of u0 and unew (a step that did nothing carried u0 over in stage 2).
  virtual void finish_step() = 0;
  // The controller as the host can see it. exact = true waits for all submitted work; with
  // exact = false a backend may answer with the status of the step before the last one
  // submitted, so that the host never waits for the step the device is running.
  virtual StepControl step_status(bool exact) = 0;
  // The controller as the last plan_step() left it, once all work is done: what a check of the
  // state at a stop reads, after which no step publishes a status (the driver's
  // check_state_at_stop). Where step_status(true) is the controller itself, that.
  virtual StepControl planned_status() { return step_status(true); }

  // After a numerical fault (step_status(true).failed), makes u0 the broken state, or the
  // last good one: the state it was made from, at step - 1 and time t_before (only when a
  // step was taken since the state was made or written). Every step after the fault did nothing, so both are
  // intact, in u0 and unew; their roles swapped on regardless, so the backend is told.
  virtual void select_after_fault(AfterFault which) = 0;

  // ---- One SSP-RK2 stage; each does nothing when the planned dt is 0, except that ----
  // ---- stage 2 then carries u0 over into unew unless the run has failed        ----
  // Fills the ghost layers of direction d of one state array from the boundary conditions,
  // over the whole padded extent of the other two directions, except on exchanged faces
  // (the halo exchange below fills those). The driver goes x, then y, then z, so that
  // edges and corners are right.
  virtual void fill_boundary(int d, Slot slot) = 0;

  // Face fluxes along direction d, computed from state `slot` into the flux array of d,
  // for the faces that bound the cells of `cells` (its n + 1 faces along d).
  virtual void compute_fluxes(int d, Slot slot, const CellBox& cells) = 0;

  // Stage 1: u1 = u0 - dt div F;  stage 2: unew = (u0 + u1 - dt div F) / 2, with the
  // planned dt, for the cells of `cells`.
  virtual void update(int stage, const CellBox& cells) = 0;

  // The kernels the backend was made with (KernelStrategy: split or fused, never auto).
  // Split: compute_fluxes() along each active direction, then update(). Fused: this one
  // call, which makes every face flux of the cells on chip (there are no flux arrays) and
  // applies the stage, with the same result bit for bit.
  virtual KernelStrategy kernels() const = 0;
  virtual void fused_stage(int stage, const CellBox& cells) = 0;
  // How fused_stage() runs here, in words: its tile, threads, blocks per multiprocessor, where
  // the columns' states live and when the update reads its lookahead (the report's
  // config.fused_shape; docs/report.md). Throws ResourceError where no tile fits the device.
  virtual std::string fused_shape() const = 0;

  // ---- Halo exchange (kernels/halo.hpp): the device side; app/stages.cpp drives it -----
  // Set once before the first step: the strategy, which faces are exchanged, and the host
  // memory of the staging buffers. With Sync and GpuAware every call below runs in the
  // compute stream; with Overlap in a second (halo) stream, ordered by begin_halo() and
  // end_halo().
  virtual void configure_halo(const HaloSetup& setup) = 0;
  // The halo stream waits for the compute stream's work so far (the stage's input is final).
  virtual void begin_halo() {}
  // The compute stream waits for the halo stream (the ghosts have landed).
  virtual void end_halo() {}
  // Packs the exchanged faces of direction d of `slot` into the device send buffers.
  virtual void pack_halo(int d, Slot slot) = 0;
  // Copies the send buffers of d into the host staging buffers (staged strategies).
  virtual void halo_to_host(int d) = 0;
  // Waits until what MPI will read (the staging buffers, or the device send buffers for
  // GpuAware) holds the packed messages of d.
  virtual void wait_halo_sent(int d) = 0;
  // The buffers MPI reads and writes for direction d.
  virtual HaloMessages halo_messages(int d) = 0;
  // Copies the received staging buffers of d to the device receive buffers.
  virtual void halo_to_device(int d) = 0;
  // Unpacks the received messages of d into the ghosts of `slot`.
  virtual void unpack_halo(int d, Slot slot) = 0;

  // The time step needs the max signal rate over all ranks: plan_step() passes this rank's
  // max through `reduce` (an MPI allreduce) before planning. Unset: one rank.
  void set_global_max(std::function<double(double)> reduce) { global_max_ = std::move(reduce); }

  // Waits until all work submitted so far has finished.
  virtual void fence() = 0;

  // The clock the driver's phase timers read (see app/timers.hpp), on the compute stream
  // or on the halo stream (the same as the compute stream unless the strategy overlaps).
  virtual std::unique_ptr<PhaseClock> make_clock(Stream stream = Stream::Compute) = 0;

  // Bytes of memory the backend holds for state and fluxes.
  virtual std::size_t bytes_allocated() const = 0;

  virtual DeviceInfo device_info() const = 0;

  // The conservation totals (kernels/totals.hpp), made where the state lives in two passes
  // over the interior of u0: this rank's largest |value| of each variable; then, at the
  // scales the driver picks from the maxima over all ranks, this rank's fixed-point sums.
  virtual MaxAbs max_abs_part() = 0;
  virtual FixedSums fixed_sums_part(const TotalsScale& scale) = 0;

  // This rank's part of the state's checksum (kernels/checksum.hpp): the sum modulo 2^64 of
  // the terms of u0's interior cells, computed where the state lives. The driver adds the
  // ranks' parts.
  virtual std::uint64_t checksum_part() = 0;

  // Every host-device copy made so far (empty for a backend in host memory).
  virtual const TransferLog& transfers() const = 0;

 protected:
  std::function<double(double)> global_max_;
};

}  // namespace halocline
