// The Kokkos backend: the state, stage and flux arrays in the memory the owner model puts
// them in (kernels/kokkos/memory.hpp), reached through the layout accessor; the loops are
// in the headers beside this file (one per kernel). Instantiated below for every layout and
// precision.
//
// Owner models, as in the native HIP backend (kernels/contract/strategy.hpp):
//   device   everything in the execution space's memory; the host's copy (pinned or
//            pageable staging) only at set-up and output.
//   host     the host owns u0 between steps: each step copies it to the device and back.
//   managed  the arrays in managed memory (Kokkos::SharedSpace), prefetched to whichever
//            side touches them next.
// On the host execution spaces (Serial, OpenMP) the execution space's memory is the host's:
// only the device owner model means anything there, and nothing is copied.
//
// Streams are execution-space instances: `compute` runs the stage kernels and `halo` the
// exchange's kernels and copies; events order them on a GPU (kernels/kokkos/gpu.hpp). On
// the host execution spaces both are the default instance, so the overlap strategy runs in
// the same order as on a GPU but does not overlap.
//
// The time-step controller lives on the host: the signal-rate reduction returns its result
// there (Kokkos waits for it), so the host never runs more than one step ahead.
#include "kernels/kokkos/kokkos_backend.hpp"

#include "kernels/contract/footprint.hpp"
#include "kernels/contract/halo_buffers.hpp"
#include "kernels/contract/solver_arrays.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/kokkos/fluxes.hpp"
#include "kernels/kokkos/fused.hpp"
#include "kernels/kokkos/ghost_fill.hpp"
#include "kernels/kokkos/gpu.hpp"
#include "kernels/kokkos/halo.hpp"
#include "kernels/kokkos/memory.hpp"
#include "kernels/kokkos/state_slabs.hpp"
#include "kernels/kokkos/update.hpp"
#include "layouts/canonical.hpp"
#include "layouts/layouts.hpp"

namespace halocline {

namespace {

// Refuses, before allocating, a run whose arrays would not fit in the host memory the
// kernel says is available (MemAvailable): a clear message and exit code 2 rather than the
// out-of-memory killer in the middle of a run.
void check_host_memory(std::size_t needed, const std::string& what) {
  const std::size_t available = available_host_bytes();
  if (available == 0) return;  // not Linux: nothing to compare with
  if (needed > available)
    throw ResourceError(what + " needs " + std::to_string(needed) + " bytes (" + std::to_string(needed >> 30) +
                        " GiB) of host memory; " + "the machine has " + std::to_string(available) + " bytes (" +
                        std::to_string(available >> 30) + " GiB) available");
}

template <class Real, class L>
class KokkosBackend final : public Backend {
 public:
  KokkosBackend(const Grid& grid, const Physics& physics, const BoundaryFaces& boundary, const MemoryStrategy& memory,
                const std::array<int, 3>& tile, KernelStrategy kernels)
      : grid_(grid), physics_(physics), boundary_(boundary), memory_(memory), tile_(tile), kernels_(kernels) {
    // The phase timers' scopes become Kokkos Profiling regions, so that Kokkos Tools (a
    // space-time stack, a timeline) show the phases around the kernels, as NVTX ranges do for
    // the HIP backend in Nsight Systems.
    profiler_ranges() = {[](const char* name) { Kokkos::Profiling::pushRegion(name); },
                         [] { Kokkos::Profiling::popRegion(); }};
    using kokkos::Where;
    const std::size_t bytes = L::storage_size(grid.ncells) * sizeof(Real);
    const bool flux_arrays = kernels == KernelStrategy::Split;
    const bool managed = memory.owner == Owner::Managed;
    const Footprint need =
        footprint_of(grid, L::kind, sizeof(Real), flux_arrays, {}, false, kokkos_device_scratch(sizeof(Real)));
    slab_buffer_bytes_ = saturated_bytes(need.slab_buffers);
    if (kokkos::kHostExecution)
      check_host_memory(saturated_bytes(need.peak()), "this grid's arrays");
    else
      kokkos::check_device_fits(saturated_bytes(need.peak()), managed ? "the managed owner model" : "this grid");
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    // Its device code indexes in 32 bits, in device memory or not; after the memory check,
    // whose line names the largest grid that fits (a subdomain beyond 32-bit indices fits no
    // device of today).
    check_device_indexable(grid);
#endif
    const Where where = managed ? Where::Managed : Where::Device;
    arrays_.allocate(grid, flux_arrays, bytes,
                     [&](std::size_t size, const std::string& name) { return Buffer(name, size, where); });
    // The host's copy of the state: the host owner's u0 between steps, on a device execution
    // space (files and restarts go through slabs otherwise; a host space's state is read in
    // place).
    staged_ = !managed && !kokkos::kHostExecution;
    state_bytes_ = bytes;
    if (staged_ && memory.owner == Owner::Host) staging();
  }

  std::string description() const override {
    return std::string("kokkos (") + Kokkos::DefaultExecutionSpace::name() +
           (kokkos::kHostExecution ? "" : std::string(", owner ") + owner_name(memory_.owner)) + ")";
  }

  // ---- State in and out -------------------------------------------------------------
  // Made in place by the execution space; the host owner's copy is the state, so it is made
  // in the device array and copied there once (an owner model that keeps the state on the
  // host pays that copy every step anyway).
  void make_initial_state(const InitialCondition& ic) override {
    rates_ready_ = false;
    if (!staged_ && memory_.prefetch) prefetch_arrays();  // every array, not only the state written
    kokkos::make_initial_state(compute_launch(), grid_, ic, state(Slot::U0));
    if (memory_.owner == Owner::Host && staged_) copy(staging(), arrays_.u0(), Purpose::Setup, instances_.compute);
    instances_.compute.fence();
  }

  // Where the host can read the state (a host execution space; the host owner's copy), each
  // slab is converted from it in place; otherwise the execution space packs the slab into a
  // device buffer, copied into a host one.
  void read_state(const SlabSink& take, Purpose purpose, std::size_t slab_bytes) override {
    const SlabPlan plan{grid_, slab_bytes};
    std::vector<double> values(kNumVars * plan.max_cells());
    const bool host_copy = memory_.owner == Owner::Host && staged_;
    if (kokkos::kHostExecution || host_copy) {
      instances_.compute.fence();
      const Real* source = static_cast<const Real*>((host_copy ? staging() : arrays_.u0()).get());
      for (int s = 0; s < plan.count(); ++s) {
        to_canonical_slab<Real, L>(grid_, source, plan.z_begin(s), plan.z_end(s), values.data());
        take({plan.block(s), values.data()});
      }
      return;
    }
    const auto [packed, host] = slab_buffers(values.size() * sizeof(Real));
    for (int s = 0; s < plan.count(); ++s) {
      const std::size_t cells = plan.block(s).cells();
      kokkos::pack_slab(instances_.compute, grid_, state(Slot::U0), plan.z_begin(s), cells,
                        static_cast<Real*>(packed.get()));
      copy(host, packed, purpose, instances_.compute, kNumVars * cells * sizeof(Real));
      instances_.compute.fence();
      const Real* got = static_cast<const Real*>(host.get());
      std::copy(got, got + kNumVars * cells, values.begin());
      take({plan.block(s), values.data()});
    }
  }

  // Where the host can write the state (a host execution space, managed memory, the host
  // owner's copy), each slab is converted into it in place; otherwise it goes through a host
  // buffer and a device buffer and the execution space unpacks it.
  void write_state(const SlabSource& give, std::size_t slab_bytes) override {
    rates_ready_ = false;
    const SlabPlan plan{grid_, slab_bytes};
    std::vector<double> values(kNumVars * plan.max_cells());
    const bool host_copy = memory_.owner == Owner::Host && staged_;
    instances_.compute.fence();
    if (!staged_ || host_copy) {
      Real* target = static_cast<Real*>((host_copy ? staging() : arrays_.u0()).get());
      for (int s = 0; s < plan.count(); ++s) {
        give(plan.block(s), values.data());
        from_canonical_slab<Real, L>(grid_, target, plan.z_begin(s), plan.z_end(s), values.data());
      }
      if (host_copy) copy(arrays_.u0(), staging(), Purpose::Setup, instances_.compute);
      if (!staged_ && memory_.prefetch) prefetch_arrays();  // every array, not only the state written
      instances_.compute.fence();
      return;
    }
    const auto [packed, host] = slab_buffers(values.size() * sizeof(Real));
    for (int s = 0; s < plan.count(); ++s) {
      const std::size_t cells = plan.block(s).cells();
      give(plan.block(s), values.data());
      std::transform(values.begin(), values.begin() + kNumVars * cells, static_cast<Real*>(host.get()),
                     [](double x) { return static_cast<Real>(x); });
      copy(packed, host, Purpose::Setup, instances_.compute, kNumVars * cells * sizeof(Real));
      kokkos::unpack_slab(instances_.compute, grid_, state(Slot::U0), plan.z_begin(s), cells,
                          static_cast<const Real*>(packed.get()));
      instances_.compute.fence();  // `host` is filled again next
    }
  }

  // A slab's device buffer and its host buffer (of the run's host memory kind).
  std::pair<kokkos::Buffer, kokkos::Buffer> slab_buffers(std::size_t bytes) const {
    return {kokkos::Buffer("state_slab", bytes, kokkos::Where::Device),
            kokkos::Buffer("state_slab_host", bytes, host_where(memory_.host_memory))};
  }

  bool moves_state_each_step() const override { return halocline::moves_state_each_step(memory_); }
  // Host owner: the step starts by sending the host's state to the device. (Managed memory's
  // pages stay there: the host reads and writes the state through slabs the device packs.)
  void upload_state() override {
    if (memory_.owner == Owner::Host) copy(arrays_.u0(), staging(), Purpose::Step, instances_.compute);
  }
  // Host owner: the step ends with the state back on the host, which owns it again.
  void download_state() override {
    if (memory_.owner != Owner::Host) return;
    copy(staging(), arrays_.u0(), Purpose::Step, instances_.compute);
    instances_.compute.fence();
  }

  // ---- Time-step controller (on the host) -------------------------------------------
  void reset_control(const StepControl& initial) override {
    control_ = initial;
    rates_ready_ = false;
  }
  void set_stop(double t_stop, long step_limit) override {
    control_.t_stop = t_stop;
    control_.step_limit = step_limit;
  }
  // The time step from the largest signal rate of u0: folded in by the last step's fused
  // stage 2 when it wrote every cell of u0 (rates_ready_), otherwise a pass over u0.
  void plan_step() override {
    double rate = 0;
    if (rates_ready_) {
      Real folded = 0;
      Kokkos::deep_copy(folded, max_rate_);
      Kokkos::deep_copy(max_rate_, Real(0));  // the next stage 2 starts from 0
      rate = static_cast<double>(folded);
    } else {
      rate = static_cast<double>(kokkos::max_signal_rate(compute_launch(), grid_, physics_, state(Slot::U0)));
      // A fused stage 2 that covered part of the cells (halo overlap's interior, a step past
      // a stop) may have folded rates in: the next fold starts from 0 all the same.
      if (kernels_ == KernelStrategy::Fused) Kokkos::deep_copy(max_rate_, Real(0));
    }
    rates_ready_ = false;
    if (global_max_) rate = global_max_(rate);
    halocline::plan_step(control_, rate, arrays_.current());
  }
  void finish_step() override {
    rates_ready_ = rates_folded_;
    rates_folded_ = false;
    halocline::finish_step(control_);
    arrays_.finish_step();
  }
  void select_after_fault(AfterFault which) override {
    Kokkos::fence();
    rates_ready_ = false;
    arrays_.select_after_fault(which, control_.failed_array);
    // The host owner's state is its host copy: bring the chosen state there.
    if (memory_.owner == Owner::Host) {
      copy(staging(), arrays_.u0(), Purpose::Output, instances_.compute);
      instances_.compute.fence();
    }
  }
  StepControl step_status(bool /*exact*/) override { return control_; }

  // ---- One stage ----------------------------------------------------------------------
  void fill_boundary(int d, Slot slot) override {
    if (!(control_.dt > 0)) return;
    kokkos::fill_ghosts_along(stream_of_halo(), grid_, boundary_, state(slot), d);
  }

  void compute_fluxes(int d, Slot slot, const CellBox& cells) override {
    if (!(control_.dt > 0) || cells.empty()) return;
    kokkos::compute_fluxes_along(compute_launch(), grid_, physics_, cells, state(slot), ref_of(arrays_.flux(d)), d);
  }

  void update(int stage, const CellBox& cells) override {
    if (cells.empty() || carried(stage, cells)) return;
    const StageUpdate st = stage_update(stage, control_.dt, grid_);
    const StateRef<Real, L> flux[3] = {ref_of(arrays_.flux(0)), ref_of(arrays_.flux(1)), ref_of(arrays_.flux(2))};
    kokkos::update_stage(compute_launch(), grid_, cells, st, state(Slot::U0), state(Slot::U1),
                         stage == 1 ? state(Slot::U1) : next_solution(), flux);
  }

  KernelStrategy kernels() const override { return kernels_; }
  std::string fused_shape() const override { return kokkos::fused_shape_name<Real, L>(); }
  void fused_stage(int stage, const CellBox& cells) override {
    if (cells.empty() || carried(stage, cells)) return;
    kokkos::fused_stage(compute_launch(), grid_, cells, stage_update(stage, control_.dt, grid_), physics_,
                        state(stage == 1 ? Slot::U0 : Slot::U1), state(Slot::U0),
                        stage == 1 ? state(Slot::U1) : next_solution(), max_rate_);
    rates_folded_ = rates_folded_ || stage == 2;
  }

  // No step planned (dt 0): a step past a stop carries u0 over in stage 2; after a fault u0
  // is the last good state and stays. True when the stage has nothing else to do.
  bool carried(int stage, const CellBox& cells) {
    if (control_.dt > 0) return false;
    if (stage == 2 && !control_.failed)
      kokkos::carry_stage(compute_launch(), grid_, cells, state(Slot::U0), next_solution());
    return true;
  }

  // ---- Halo exchange: device messages per face, host staging of the run's memory kind --
  void configure_halo(const HaloSetup& setup) override {
    const std::size_t bytes = halo_buffers_.device_bytes_of(setup, grid_, sizeof(Real));
    if (kokkos::kHostExecution)  // the staged strategies' host copies are host memory too
      check_host_memory(setup.staged() ? 2 * bytes : bytes, "the halo exchange's buffers");
    else  // with room left for the slab buffer a file's write makes later (the peak, Footprint)
      kokkos::check_device_fits(bytes + slab_buffer_bytes_, "the halo exchange's buffers");
    halo_buffers_.configure(
        setup, grid_, sizeof(Real),
        [](std::size_t bytes, const char* name) { return Buffer(name, bytes, kokkos::Where::Device); },
        [](std::size_t bytes, HostMemory memory, const char* name) { return Buffer(name, bytes, host_where(memory)); });
  }
  void begin_halo() override {
    if (halo_buffers_.setup.strategy == HaloStrategy::Overlap) halo_ready_.after(instances_.halo, instances_.compute);
  }
  void end_halo() override {
    if (halo_buffers_.setup.strategy == HaloStrategy::Overlap) halo_done_.after(instances_.compute, instances_.halo);
  }
  void pack_halo(int d, Slot slot) override {
    kokkos::halo_loop<true>(stream_of_halo(), grid_, state(slot), d, halo_buffers_.setup.exchanged[d],
                            static_cast<Real*>(halo_buffers_.send[d][0].get()),
                            static_cast<Real*>(halo_buffers_.send[d][1].get()));
  }
  void halo_to_host(int d) override {
    for (int side = 0; side < 2; ++side)
      if (halo_buffers_.setup.exchanged[d][side])
        copy(halo_buffers_.send_host[d][side], halo_buffers_.send[d][side], Purpose::Halo, stream_of_halo());
  }
  void wait_halo_sent(int) override { stream_of_halo().fence(); }  // MPI reads them next
  HaloMessages halo_messages(int d) override { return halo_buffers_.messages(d, grid_, sizeof(Real)); }
  void halo_to_device(int d) override {
    for (int side = 0; side < 2; ++side)
      if (halo_buffers_.setup.exchanged[d][side])
        copy(halo_buffers_.receive[d][side], halo_buffers_.receive_host[d][side], Purpose::Halo, stream_of_halo());
  }
  void unpack_halo(int d, Slot slot) override {
    kokkos::halo_loop<false>(stream_of_halo(), grid_, state(slot), d, halo_buffers_.setup.exchanged[d],
                             static_cast<Real*>(halo_buffers_.receive[d][0].get()),
                             static_cast<Real*>(halo_buffers_.receive[d][1].get()));
  }

  void fence() override { Kokkos::fence(); }

  // Device events on the instance's stream on a GPU; the host clock after a fence of the
  // instance on the host execution spaces (free there: they run in the call).
  std::unique_ptr<PhaseClock> make_clock(Stream stream) override {
    return kokkos::make_clock_for(stream == Stream::Halo ? stream_of_halo() : instances_.compute);
  }

  DeviceInfo device_info() const override { return kokkos_device_info(); }

  // Every copy between host and device memory, by purpose and host memory kind; none on a
  // host execution space.
  const TransferLog& transfers() const override { return transfers_; }

  std::size_t bytes_allocated() const override {
    return arrays_.bytes() + max_rate_.span() * sizeof(Real) + halo_buffers_.device_bytes;
  }

  std::uint64_t checksum_part() override { return kokkos::checksum_part(compute_launch(), grid_, state(Slot::U0)); }
  MaxAbs max_abs_part() override { return kokkos::max_abs_part(compute_launch(), grid_, state(Slot::U0)); }
  FixedSums fixed_sums_part(const TotalsScale& scale) override {
    return kokkos::fixed_sums_part(compute_launch(), grid_, state(Slot::U0), scale);
  }

 private:
  using Buffer = kokkos::Buffer;

  static kokkos::Where host_where(HostMemory kind) {
    return kind == HostMemory::Pinned ? kokkos::Where::Pinned : kokkos::Where::Pageable;
  }

  StateRef<Real, L> ref_of(const Buffer& b) const {
    return StateRef<Real, L>{static_cast<Real*>(b.get()), grid_.ncells};
  }
  StateRef<Real, L> state(Slot slot) const { return ref_of(arrays_[slot]); }
  StateRef<Real, L> next_solution() const { return ref_of(arrays_.unew()); }

  // The cell loops of a stage: on the compute instance, in the tiles the run asked for.
  kokkos::Launch compute_launch() const { return {instances_.compute, tile_}; }
  // Where the exchange's work runs: the halo instance when the strategy overlaps.
  const kokkos::Exec& stream_of_halo() const {
    return halo_buffers_.setup.strategy == HaloStrategy::Overlap ? instances_.halo : instances_.compute;
  }

  // A copy between two buffers on instance `on`, counted where it crosses between host and
  // device memory.
  // `bytes` = 0: the whole of src.
  void copy(const Buffer& dst, const Buffer& src, Purpose purpose, const kokkos::Exec& on, std::size_t bytes = 0) {
    if (bytes == 0) bytes = src.bytes();
    kokkos::copy_bytes(on, dst.get(), dst.where(), src.get(), src.where(), bytes);
    if (kokkos::kHostExecution) return;
    const bool to_host = kokkos::on_host(dst.where()), from_host = kokkos::on_host(src.where());
    if (to_host != from_host)
      transfers_.add(to_host ? Direction::DeviceToHost : Direction::HostToDevice,
                     kokkos::host_kind(to_host ? dst.where() : src.where()), purpose, bytes);
  }
  // A managed array's pages to the device or the host, counted as a managed transfer.
  bool prefetch(const Buffer& b, bool to_device, Purpose purpose) {
    if (!kokkos::prefetch(instances_.compute, b, to_device)) return false;
    transfers_.add(to_device ? Direction::HostToDevice : Direction::DeviceToHost, HostKind::Managed, purpose,
                   b.bytes());
    return true;
  }

  Grid grid_;
  Physics physics_;
  BoundaryFaces boundary_;
  MemoryStrategy memory_;
  std::array<int, 3> tile_;  // --kokkos-tile (see kokkos::Launch)
  KernelStrategy kernels_;   // split or fused (resolved by app/select.cpp)
  kokkos::Instances instances_;
  SolverArrays<Buffer> arrays_;  // u0, unew, u1 and the fluxes
  Buffer staging_;               // the host's copy of the state, through staging()
  bool staged_ = false;          // the state goes to the host through staging_
  std::size_t state_bytes_ = 0;
  std::size_t slab_buffer_bytes_ = 0;  // what read_state makes at its peak (Footprint::slab_buffers)

  // Every array's pages to the device at set-up, not by page faults in the first step
  // (managed memory; nothing to do in a host space).
  void prefetch_arrays() {
    arrays_.for_each([&](const Buffer& b) { prefetch(b, true, Purpose::Setup); });
  }

  Buffer& staging() {
    if (!staging_.get()) staging_ = Buffer("state_host", state_bytes_, host_where(memory_.host_memory));
    return staging_;
  }
  HaloBuffers<Buffer, Buffer> halo_buffers_;  // the strategy, device messages, host staging
  kokkos::StreamOrder halo_ready_, halo_done_;
  StepControl control_;
  // The fused stage 2's largest signal rate of the cells it wrote (zero-initialised), and
  // whether it holds u0's (see plan_step).
  Kokkos::View<Real, kokkos::Exec::memory_space> max_rate_{"max_rate"};
  bool rates_folded_ = false;  // this step's stage 2 folded its rates in
  bool rates_ready_ = false;
  TransferLog transfers_;
};

}  // namespace

template <class Real, class L>
std::unique_ptr<Backend> make_kokkos_backend(const Grid& grid, const Physics& physics, const BoundaryFaces& boundary,
                                             const MemoryStrategy& memory, const std::array<int, 3>& tile,
                                             KernelStrategy kernels) {
  const std::string why = kokkos_owner_unavailable(memory.owner);
  if (!why.empty()) throw NotApplicable(why);
  return std::make_unique<KokkosBackend<Real, L>>(grid, physics, boundary, memory, tile, kernels);
}

std::string kokkos_owner_unavailable(Owner owner) {
  if (!kokkos::kHostExecution || owner == Owner::Device) return "";
  return std::string("the ") + owner_name(owner) + " owner model: the kokkos backend runs on " +
         Kokkos::DefaultExecutionSpace::name() +
         ", whose memory is the host's: only the device owner model applies there";
}

bool kokkos_on_gpu() { return !kokkos::kHostExecution; }

BackendScratch kokkos_device_scratch(std::size_t value_bytes) {
  // The rate's max (max_rate_); a device execution space's read_state or write_state makes one
  // slab buffer there (a host execution space reads and writes the state in place).
  return {kokkos::kHostExecution ? 0 : 1, value_bytes};
}

#define HALOCLINE_INSTANTIATE(REAL, LAYOUT)                                                                        \
  template std::unique_ptr<Backend> make_kokkos_backend<REAL, LAYOUT>(const Grid&, const Physics&,                 \
                                                                      const BoundaryFaces&, const MemoryStrategy&, \
                                                                      const std::array<int, 3>&, KernelStrategy);
HALOCLINE_FOR_EACH_PRECISION_AND_LAYOUT(HALOCLINE_INSTANTIATE)
#undef HALOCLINE_INSTANTIATE

DeviceInfo kokkos_device_info() {
  DeviceInfo info = kokkos::gpu_info();
  const std::string version = "Kokkos " + std::to_string(KOKKOS_VERSION / 10000) + "." +
                              std::to_string(KOKKOS_VERSION / 100 % 100) + "." + std::to_string(KOKKOS_VERSION % 100);
  if (!info.kind.empty()) {  // a GPU: the runtime's description, and which Kokkos drives it
    info.runtime_version = version + " on " + info.runtime_version;
    return info;
  }
  info.kind = "cpu";
  info.name = Kokkos::DefaultExecutionSpace::name();
  info.compute_units = Kokkos::DefaultExecutionSpace().concurrency();
  info.runtime_version = version;
  // The host's last-level cache, as Linux tells (the probe sizes its arrays past it).
  for (int index = 4; index >= 0 && info.cache_bytes == 0; --index) {
    std::ifstream size_file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::size_t kib = 0;
    char unit = 0;
    if (size_file >> kib >> unit) info.cache_bytes = kib * (unit == 'M' ? 1024 * 1024 : 1024);
  }
  return info;
}

void kokkos_initialize(int& argc, char** argv) { Kokkos::initialize(argc, argv); }
void kokkos_finalize() { Kokkos::finalize(); }

}  // namespace halocline
