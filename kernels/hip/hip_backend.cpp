// The native HIP backend. The state lives where the owner model puts it (kernels/contract/strategy.hpp):
//   device   the state arrays (and the split kernels' fluxes) in device memory for the whole
//            run; the time step is planned and used on the device; a snapshot or checkpoint
//            leaves it in slabs of whole z-planes, each packed on the device and copied into
//            the run's host memory (pinned or pageable) while the host takes the slab before
//            it (read_state), between steps.
//   host     the host owns u0 between steps: every step copies it to the device and back
//            (the naive port), in pinned or pageable host memory.
//   managed  the state arrays and the fluxes in one kind of managed memory touched by both
//            sides, with or without prefetching.
// Compiled by nvcc (NVIDIA) or hipcc (AMD); instantiated below for every layout and
// precision.
#include "kernels/hip/hip_backend.hpp"

#include "kernels/contract/footprint.hpp"
#include "kernels/contract/halo_buffers.hpp"
#include "kernels/contract/solver_arrays.hpp"

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/hip/device_info.hpp"
#include "kernels/hip/event_clock.hpp"
#include "kernels/hip/fluxes.hpp"
#include "kernels/hip/fused.hpp"
#include "kernels/hip/ghost_fill.hpp"
#include "kernels/hip/halo.hpp"
#include "kernels/hip/memory.hpp"
#include "kernels/hip/state_slabs.hpp"
#include "kernels/hip/step_control.hpp"
#include "kernels/hip/update.hpp"
#include "layouts/canonical.hpp"
#include "layouts/layouts.hpp"
#if defined(HALOCLINE_HIP_NVIDIA)
#include <nvtx3/nvToolsExt.h>  // header-only NVTX 3, part of the CUDA toolkit
#endif

namespace halocline {

namespace {

using hip::Box;

template <class Real, class L>
class HipBackend final : public Backend {
 public:
  HipBackend(const Grid& grid, const Physics& physics, const BoundaryFaces& boundary, const MemoryStrategy& memory,
             KernelStrategy kernels, int device)
      : grid_(grid),
        physics_(physics),
        boundary_(boundary),
        memory_(memory),
        kernels_(kernels),
        device_id_(device % std::max(1, hip_device_count())),
        copier_(log_) {
    // One rank per GPU: the rank's index on its node picks the device.
    HIP_CHECK(hipSetDevice(device_id_));
#if defined(HALOCLINE_HIP_NVIDIA)
    // The phase timers' scopes become NVTX ranges in Nsight Systems (nsys profile).
    profiler_ranges() = {[](const char* name) { nvtxRangePushA(name); }, [] { nvtxRangePop(); }};
#endif
    const bool managed = memory.owner == Owner::Managed;
    const std::size_t state_bytes = L::storage_size(grid.ncells) * sizeof(Real);
    // Its peak: read_state's two slab buffers, made only while a file is written, are counted too.
    const Footprint need = footprint_of(grid, L::kind, sizeof(Real), kernels == KernelStrategy::Split, {}, false,
                                        hip_device_scratch(sizeof(Real)));
    hip::check_fits(saturated_bytes(need.peak()), managed ? "the managed owner model" : "this grid");
    slab_buffer_bytes_ = saturated_bytes(need.slab_buffers);
    // After the memory check: a subdomain beyond 32-bit indices never fits a device of today,
    // and the memory's line names the largest grid that does.
    check_device_indexable(grid);

    arrays_.allocate(grid, kernels == KernelStrategy::Split, state_bytes,
                     [&](std::size_t bytes, const std::string&) { return hip::DeviceArray(bytes, managed); });
    max_rate_ = hip::DeviceArray(sizeof(hip::RateBits<Real>), false);
    results_ = hip::DeviceArray(sizeof(FixedSums), false);  // the checksum's or the totals' integers
    control_ = hip::DeviceArray(sizeof(StepControl), false);
    // The host's view of the controller: written by the finish-step kernel straight into
    // page-locked, device-mapped host memory (two slots: one the host may read while the
    // device writes the other).
    // Two slots for the steps' status (step_status), a third for a check's plan (planned_status).
    HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&published_), 3 * sizeof(StepControl), hipHostMallocMapped));
    HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void**>(&published_device_), published_, 0));
    // The host's copy of the state: the host owner's state between steps (the other owner
    // models have none: files and restarts go through slabs).
    state_bytes_ = state_bytes;
    if (memory.owner == Owner::Host) staging();

    HIP_CHECK(hipStreamCreateWithFlags(&compute_, hipStreamNonBlocking));
    // The halo stream gets the highest priority: its short pack and unpack kernels are then
    // scheduled as soon as blocks of the long interior kernels retire, instead of queueing
    // behind all of them, so that the exchange starts and ends while the interior computes.
    int least = 0, greatest = 0;
    HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
    HIP_CHECK(hipStreamCreateWithPriority(&halo_, hipStreamNonBlocking, greatest));
    for (hipEvent_t* e : events()) HIP_CHECK(hipEventCreateWithFlags(e, hipEventDisableTiming));
  }

  ~HipBackend() override {
    (void)hipDeviceSynchronize();
    for (hipEvent_t* e : events()) (void)hipEventDestroy(*e);
    (void)hipStreamDestroy(compute_);
    (void)hipStreamDestroy(halo_);
    (void)hipHostFree(published_);
  }

  std::string description() const override {
    return std::string("hip (") + device_info().name + ", owner " + owner_name(memory_.owner) + ")";
  }

  // ---- State in and out -------------------------------------------------------------
  // Made on the device (for the host owner, whose copy is the state, copied there once).
  void make_initial_state(const InitialCondition& ic) override {
    rates_ready_ = false;
    if (memory_.owner == Owner::Managed && memory_.prefetch)
      prefetch_arrays();  // every array, not only the state written
    const Box box = hip::interior_box(grid_);
    hip::initial_state_kernel<<<box.blocks(), Box::threads(), 0, compute_>>>(grid_, box, ic, state(Slot::U0));
    HIP_CHECK_LAUNCH();
    if (memory_.owner == Owner::Host) u0_to_host(Purpose::Setup, compute_);
    HIP_CHECK(hipStreamSynchronize(compute_));
  }

  // u0 is current on the device for every owner model (the host owner's copy is made from
  // it): each slab is packed there and copied into one of two host slab buffers in turn, so
  // that the device packs and copies slab s + 1 while `take` works on slab s.
  void read_state(const SlabSink& take, Purpose purpose, std::size_t slab_bytes) override {
    const SlabPlan plan{grid_, slab_bytes};
    const std::size_t bytes = kNumVars * plan.max_cells() * sizeof(Real);
    hip::DeviceArray packed[2] = {hip::DeviceArray(bytes, false), hip::DeviceArray(bytes, false)};
    hip::HostBuffer host[2] = {hip::HostBuffer(bytes, memory_.host_memory),
                               hip::HostBuffer(bytes, memory_.host_memory)};
    std::vector<double> converted(std::is_same_v<Real, double> ? 0 : kNumVars * plan.max_cells());
    auto start = [&](int s) {
      const std::size_t cells = plan.block(s).cells();
      Real* out = static_cast<Real*>(packed[s % 2].get());
      hip::pack_slab_kernel<<<hip::pack_blocks(cells), hip::kPackThreads, 0, compute_>>>(grid_, state(Slot::U0),
                                                                                         plan.z_begin(s), cells, out);
      HIP_CHECK_LAUNCH();
      copier_.to_host(host[s % 2], out, kNumVars * cells * sizeof(Real), purpose, compute_);
      HIP_CHECK(hipEventRecord(slab_copied_[s % 2], compute_));
    };
    const int count = plan.count();
    try {
      for (int s = 0; s < std::min(2, count); ++s) start(s);
      for (int s = 0; s < count; ++s) {
        HIP_CHECK(hipEventSynchronize(slab_copied_[s % 2]));
        const Real* got = static_cast<const Real*>(host[s % 2].get());
        const CellBlock block = plan.block(s);
        if constexpr (std::is_same_v<Real, double>) {
          take({block, got});
        } else {
          std::copy(got, got + kNumVars * block.cells(), converted.begin());
          take({block, converted.data()});
        }
        if (s + 2 < count) start(s + 2);
      }
    } catch (...) {
      (void)hipStreamSynchronize(compute_);  // nothing in flight into the buffers freed now
      throw;
    }
  }

  // Each slab through one host buffer and one device buffer, unpacked into u0 on the device
  // (for every owner model; the host owner's copy is then made from u0).
  void write_state(const SlabSource& give, std::size_t slab_bytes) override {
    rates_ready_ = false;
    if (memory_.owner == Owner::Managed && memory_.prefetch)
      prefetch_arrays();  // every array, not only the state written
    const SlabPlan plan{grid_, slab_bytes};
    const std::size_t values = kNumVars * plan.max_cells();
    hip::DeviceArray packed(values * sizeof(Real), false);
    hip::HostBuffer host(values * sizeof(Real), memory_.host_memory);
    std::vector<double> given(values);
    Real* in = static_cast<Real*>(host.get());
    try {
      for (int s = 0; s < plan.count(); ++s) {
        const CellBlock block = plan.block(s);
        const std::size_t cells = block.cells();
        give(block, given.data());
        HIP_CHECK(hipStreamSynchronize(compute_));  // the last slab's copy has read `host`
        std::transform(given.begin(), given.begin() + kNumVars * cells, in,
                       [](double x) { return static_cast<Real>(x); });
        copier_.to_device(packed.get(), host, kNumVars * cells * sizeof(Real), Purpose::Setup, compute_);
        hip::unpack_slab_kernel<<<hip::pack_blocks(cells), hip::kPackThreads, 0, compute_>>>(
            grid_, state(Slot::U0), plan.z_begin(s), cells, static_cast<const Real*>(packed.get()));
        HIP_CHECK_LAUNCH();
      }
    } catch (...) {
      (void)hipStreamSynchronize(compute_);  // nothing in flight from the buffers freed now
      throw;
    }
    if (memory_.owner == Owner::Host) u0_to_host(Purpose::Setup, compute_);
    HIP_CHECK(hipStreamSynchronize(compute_));
  }

  // ---- Time-step controller -----------------------------------------------------------
  void reset_control(const StepControl& initial) override {
    HIP_CHECK(hipMemcpy(control_.get(), &initial, sizeof initial, hipMemcpyHostToDevice));
    published_[0] = published_[1] = published_[2] = initial;
    rates_ready_ = false;
    submitted_ = 0;
  }

  void set_stop(double t_stop, long step_limit) override {
    hip::set_stop_kernel<<<1, 1, 0, compute_>>>(control(), t_stop, step_limit);
    HIP_CHECK_LAUNCH();
  }

  // The time step from the largest signal rate of u0: folded in by the last step's fused
  // stage 2 when it wrote every cell of u0 (rates_ready_), otherwise by a pass over u0.
  void plan_step() override {
    if (!rates_ready_) {
      HIP_CHECK(hipMemsetAsync(max_rate_.get(), 0, max_rate_.bytes(), compute_));
      const Box box = hip::interior_box(grid_);
      hip::signal_rate_kernel<<<hip::rate_blocks(box), Box::threads(), 0, compute_>>>(grid_, box, state(Slot::U0),
                                                                                      gas(), max_bits());
      HIP_CHECK_LAUNCH();
    }
    rates_ready_ = false;
    if (global_max_) {
      // Several ranks: the host takes this rank's max, reduces it over the ranks (MPI) and
      // puts the global max back; the step waits for the device here.
      hip::RateBits<Real> bits = 0;
      copier_.result_to_host(&bits, max_rate_.get(), sizeof bits, Purpose::Step, compute_);
      HIP_CHECK(hipStreamSynchronize(compute_));
      const auto rate = static_cast<Real>(global_max_(static_cast<double>(hip::rate_of_bits<Real>(bits))));
      bits = hip::rate_bits(rate);
      copier_.result_to_device(max_rate_.get(), &bits, sizeof bits, Purpose::Step, compute_);
      HIP_CHECK(hipStreamSynchronize(compute_));
    }
    hip::plan_step_kernel<Real><<<1, 1, 0, compute_>>>(control(), max_bits(), arrays_.current());
    HIP_CHECK_LAUNCH();
  }

  void finish_step() override {
    const int slot = static_cast<int>(submitted_ % 2);
    hip::finish_step_kernel<<<1, 1, 0, compute_>>>(control(), published_device_ + slot);
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipEventRecord(finished_[slot], compute_));
    ++submitted_;
    arrays_.finish_step();
    // The fused stage 2 folded the signal rates of the new u0 into max_rate_.
    rates_ready_ = kernels_ == KernelStrategy::Fused;
  }

  void select_after_fault(AfterFault which) override {
    HIP_CHECK(hipDeviceSynchronize());
    rates_ready_ = false;
    StepControl c;
    HIP_CHECK(hipMemcpy(&c, control(), sizeof c, hipMemcpyDeviceToHost));
    arrays_.select_after_fault(which, c.failed_array);
    // The host owner's state is its host copy: bring the chosen state there.
    if (memory_.owner == Owner::Host) {
      u0_to_host(Purpose::Output, compute_);
      HIP_CHECK(hipStreamSynchronize(compute_));
    }
  }

  bool moves_state_each_step() const override { return halocline::moves_state_each_step(memory_); }

  // Host owner: the step starts by sending the host's state to the device. (Managed memory's
  // pages stay there: the host reads and writes the state through slabs the device packs.)
  void upload_state() override {
    if (memory_.owner == Owner::Host) u0_from_host(Purpose::Step);
  }
  // Host owner: the step ends with the state back on the host, which owns it again.
  void download_state() override {
    if (memory_.owner != Owner::Host) return;
    u0_to_host(Purpose::Step, compute_);
    HIP_CHECK(hipStreamSynchronize(compute_));
  }

  StepControl step_status(bool exact) override {
    if (submitted_ == 0) return published_[0];
    if (exact || memory_.owner == Owner::Host) {
      HIP_CHECK(hipStreamSynchronize(compute_));
      return published_[(submitted_ - 1) % 2];
    }
    // The step before the last one submitted: waiting for it leaves the last one queued,
    // so the device never idles while the host decides. With one submitted that is the
    // control reset_control put in both slots: slot 1's, which no kernel writes until the
    // second step (slot 0 may be half written by the first step's finish_step_kernel).
    if (submitted_ == 1) return published_[1];
    const int slot = static_cast<int>((submitted_ - 2) % 2);
    HIP_CHECK(hipEventSynchronize(finished_[slot]));
    return published_[slot];
  }

  // The controller lives on the device and only finish_step publishes it: a plan at a stop,
  // which no step follows, is published here, into the third slot.
  StepControl planned_status() override {
    hip::publish_control_kernel<<<1, 1, 0, compute_>>>(control(), published_device_ + 2);
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipStreamSynchronize(compute_));
    return published_[2];
  }

  // ---- One stage ----------------------------------------------------------------------
  void fill_boundary(int d, Slot slot) override {
    const Boundary* faces = boundary_.face[d];
    if (!grid_.active(d) || (faces[0] == Boundary::Exchanged && faces[1] == Boundary::Exchanged)) return;
    if (d == 0) launch_ghost_fill<0>(slot);
    if (d == 1) launch_ghost_fill<1>(slot);
    if (d == 2) launch_ghost_fill<2>(slot);
  }

  void compute_fluxes(int d, Slot slot, const CellBox& cells) override {
    if (cells.empty()) return;
    if (d == 0) launch_fluxes<0>(slot, cells);
    if (d == 1) launch_fluxes<1>(slot, cells);
    if (d == 2) launch_fluxes<2>(slot, cells);
  }

  void update(int stage, const CellBox& cells) override {
    if (cells.empty()) return;
    const Box box = hip::box_of(cells);
    const hip::FluxRefs<Real, L> f{{flux(0), flux(1), flux(2)}};
    hip::update_kernel<<<box.blocks(), Box::threads(), 0, compute_>>>(grid_, box, state(Slot::U0), state(Slot::U1),
                                                                      stage == 1 ? state(Slot::U1) : next_solution(), f,
                                                                      stage, control());
    HIP_CHECK_LAUNCH();
  }

  KernelStrategy kernels() const override { return kernels_; }
  std::string fused_shape() const override { return hip::fused_shape_name<Real>(); }

  void fused_stage(int stage, const CellBox& cells) override {
    if (cells.empty()) return;
    const Box box = hip::box_of(cells);
    // The kernel's shared memory is over the default 48 KiB: allowed once per kernel.
    const auto kernel = hip::fused_stage_kernel<Real, L>;
    constexpr int shared = static_cast<int>(hip::fused_shared_bytes<Real>());
    static const bool allowed = [&] {
      HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), hipFuncAttributeMaxDynamicSharedMemorySize,
                                    shared));
      return true;
    }();
    (void)allowed;
    kernel<<<hip::fused_blocks<Real>(box), hip::fused_threads<Real>(), shared, compute_>>>(
        grid_, box, state(stage == 1 ? Slot::U0 : Slot::U1), state(Slot::U0),
        stage == 1 ? state(Slot::U1) : next_solution(), gas(), physics_.limiter, physics_.riemann, stage, control(),
        max_bits());
    HIP_CHECK_LAUNCH();
  }

  // ---- Halo exchange: device buffers per face, host staging in pinned or pageable memory
  void configure_halo(const HaloSetup& setup) override {
    // With room left for the slab buffers a file's write makes later (the peak, Footprint).
    hip::check_fits(halo_buffers_.device_bytes_of(setup, grid_, sizeof(Real)) + slab_buffer_bytes_,
                    "the halo exchange's buffers");
    halo_buffers_.configure(
        setup, grid_, sizeof(Real), [](std::size_t bytes, const char*) { return hip::DeviceArray(bytes, false); },
        [](std::size_t bytes, HostMemory memory, const char*) { return hip::HostBuffer(bytes, memory); });
  }
  void begin_halo() override {
    if (halo_buffers_.setup.strategy != HaloStrategy::Overlap) return;
    HIP_CHECK(hipEventRecord(halo_ready_, compute_));
    HIP_CHECK(hipStreamWaitEvent(halo_, halo_ready_, 0));
  }
  void end_halo() override {
    if (halo_buffers_.setup.strategy != HaloStrategy::Overlap) return;
    HIP_CHECK(hipEventRecord(halo_done_, halo_));
    HIP_CHECK(hipStreamWaitEvent(compute_, halo_done_, 0));
  }
  void pack_halo(int d, Slot slot) override { launch_halo<true>(d, slot, halo_buffers_.send[d]); }
  void halo_to_host(int d) override {
    for (int side = 0; side < 2; ++side)
      if (halo_buffers_.setup.exchanged[d][side])
        copier_.to_host(halo_buffers_.send_host[d][side], halo_buffers_.send[d][side].get(),
                        halo_buffers_.send[d][side].bytes(), Purpose::Halo, halo_stream());
  }
  void wait_halo_sent(int) override {
    HIP_CHECK(hipEventRecord(halo_sent_, halo_stream()));
    HIP_CHECK(hipEventSynchronize(halo_sent_));
  }
  HaloMessages halo_messages(int d) override { return halo_buffers_.messages(d, grid_, sizeof(Real)); }
  void halo_to_device(int d) override {
    for (int side = 0; side < 2; ++side)
      if (halo_buffers_.setup.exchanged[d][side])
        copier_.to_device(halo_buffers_.receive[d][side].get(), halo_buffers_.receive_host[d][side],
                          halo_buffers_.receive[d][side].bytes(), Purpose::Halo, halo_stream());
  }
  void unpack_halo(int d, Slot slot) override { launch_halo<false>(d, slot, halo_buffers_.receive[d]); }

  void fence() override { HIP_CHECK(hipDeviceSynchronize()); }

  std::unique_ptr<PhaseClock> make_clock(Stream stream) override {
    return std::make_unique<hip::EventClock>(stream == Stream::Halo ? halo_stream() : compute_);
  }

  std::size_t bytes_allocated() const override {
    return arrays_.bytes() + max_rate_.bytes() + results_.bytes() + control_.bytes() + halo_buffers_.device_bytes;
  }

  DeviceInfo device_info() const override { return hip_device_info(device_id_); }

  const TransferLog& transfers() const override { return log_; }

  std::uint64_t checksum_part() override {
    unsigned long long sum = 0;
    reduce_u0(&sum, sizeof sum, [&](const Box& box, unsigned long long* to) {
      hip::checksum_kernel<<<hip::rate_blocks(box), Box::threads(), 0, compute_>>>(grid_, box, state(Slot::U0), to);
    });
    return sum;
  }

  MaxAbs max_abs_part() override {
    unsigned long long bits[kNumVars];
    reduce_u0(bits, sizeof bits, [&](const Box& box, unsigned long long* to) {
      hip::max_abs_kernel<<<hip::rate_blocks(box), Box::threads(), 0, compute_>>>(grid_, box, state(Slot::U0), to);
    });
    MaxAbs m;
    for (int v = 0; v < kNumVars; ++v) m.v[v] = hip::rate_of_bits<double>(bits[v]);
    return m;
  }

  FixedSums fixed_sums_part(const TotalsScale& scale) override {
    FixedSums sums;
    reduce_u0(&sums, sizeof sums, [&](const Box& box, unsigned long long* to) {
      hip::fixed_sums_kernel<<<hip::rate_blocks(box), Box::threads(), 0, compute_>>>(grid_, box, state(Slot::U0), scale,
                                                                                     to);
    });
    return sums;
  }

 private:
  // Runs `launch(box, results)` over the interior of u0 with results_ zeroed, and copies
  // `bytes` of the integer results it added into `to` on the host.
  template <class Launch>
  void reduce_u0(void* to, std::size_t bytes, const Launch& launch) {
    HIP_CHECK(hipMemsetAsync(results_.get(), 0, bytes, compute_));
    launch(hip::interior_box(grid_), static_cast<unsigned long long*>(results_.get()));
    HIP_CHECK_LAUNCH();
    copier_.result_to_host(to, results_.get(), bytes, Purpose::Output, compute_);
    HIP_CHECK(hipStreamSynchronize(compute_));
  }

  template <int D>
  void launch_ghost_fill(Slot slot) {
    int fast, slow;
    hip::ghost_directions(D, fast, slow);
    const dim3 blocks((grid_.np[fast] + 63) / 64, (2 * grid_.ng[D] + 3) / 4, grid_.np[slow]);
    hip::ghost_fill_kernel<D><<<blocks, Box::threads(), 0, halo_stream()>>>(grid_, boundary_, state(slot), control());
    HIP_CHECK_LAUNCH();
  }

  // Packs from or unpacks into the faces of d exchanged, with `messages` as buffers.
  template <bool Pack>
  void launch_halo(int d, Slot slot, const hip::DeviceArray (&messages)[2]) {
    const bool* sides = halo_buffers_.setup.exchanged[d];
    hip::halo_kernel<Pack><<<hip::message_blocks(grid_, d), Box::threads(), 0, halo_stream()>>>(
        grid_, state(slot), d, sides[0], sides[1], static_cast<Real*>(messages[0].get()),
        static_cast<Real*>(messages[1].get()));
    HIP_CHECK_LAUNCH();
  }

  template <int D>
  void launch_fluxes(Slot slot, const CellBox& cells) {
    const Box box = hip::box_of(cells, D, 1);
    hip::flux_kernel<D><<<box.blocks(), Box::threads(), 0, compute_>>>(grid_, box, state(slot), flux(D), gas(),
                                                                       physics_.limiter, physics_.riemann, control());
    HIP_CHECK_LAUNCH();
  }

  // u0 to the staging buffer on `stream`, and back on the compute stream.
  void u0_to_host(Purpose purpose, hipStream_t stream) {
    copier_.to_host(staging(), arrays_.u0().get(), state_bytes_, purpose, stream);
  }
  void u0_from_host(Purpose purpose) {
    copier_.to_device(arrays_.u0().get(), staging(), state_bytes_, purpose, compute_);
  }
  // Managed memory: every array's pages to the device at set-up, so that the first step does
  // not populate them by page faults (about a second for 16 GiB of flux arrays on an H200).
  void prefetch_arrays() {
    arrays_.for_each([&](const hip::DeviceArray& a) { copier_.prefetch(a, device_id_, Purpose::Setup, compute_); });
  }

  // The staging buffer, allocated (pinned or pageable, as configured) at its first use.
  hip::HostBuffer& staging() {
    if (!staging_.get()) staging_ = hip::HostBuffer(state_bytes_, memory_.host_memory);
    return staging_;
  }

  StateRef<Real, L> state(Slot s) const { return ref_of(arrays_[s]); }
  StateRef<Real, L> next_solution() const { return ref_of(arrays_.unew()); }
  StateRef<Real, L> ref_of(const hip::DeviceArray& a) const {
    return StateRef<Real, L>{static_cast<Real*>(a.get()), grid_.ncells};
  }
  StateRef<Real, L> flux(int d) const { return ref_of(arrays_.flux(d)); }
  StepControl* control() const { return static_cast<StepControl*>(control_.get()); }
  hip::RateBits<Real>* max_bits() const { return static_cast<hip::RateBits<Real>*>(max_rate_.get()); }
  // Where the ghost fill and the exchange run: the halo stream when the strategy overlaps.
  hipStream_t halo_stream() const { return halo_buffers_.setup.strategy == HaloStrategy::Overlap ? halo_ : compute_; }
  std::vector<hipEvent_t*> events() {
    return {&finished_[0], &finished_[1], &halo_ready_, &halo_done_, &halo_sent_, &slab_copied_[0], &slab_copied_[1]};
  }
  IdealGas<Real> gas() const { return IdealGas<Real>(static_cast<Real>(physics_.gamma)); }

  Grid grid_;
  Physics physics_;
  BoundaryFaces boundary_;
  MemoryStrategy memory_;
  KernelStrategy kernels_;  // split or fused (resolved by app/select.cpp)
  int device_id_ = 0;
  TransferLog log_;
  hip::Copier copier_;

  SolverArrays<hip::DeviceArray> arrays_;          // u0, unew, u1 and the fluxes
  hip::DeviceArray max_rate_, results_, control_;  // max_rate_: the pass's max (hip::RateBits)
  hip::HostBuffer staging_;                        // through staging()
  std::size_t state_bytes_ = 0;
  std::size_t slab_buffer_bytes_ = 0;        // what read_state makes at its peak (Footprint::slab_buffers)
  StepControl* published_ = nullptr;         // host address of the two mapped slots
  StepControl* published_device_ = nullptr;  // the same, as the device sees it
  long submitted_ = 0;                       // steps finished on the stream so far

  // The strategy, the messages in device memory and their host staging buffers.
  HaloBuffers<hip::DeviceArray, hip::HostBuffer> halo_buffers_;

  hipStream_t compute_ = nullptr, halo_ = nullptr;
  hipEvent_t finished_[2] = {nullptr, nullptr};
  hipEvent_t halo_ready_ = nullptr, halo_done_ = nullptr, halo_sent_ = nullptr;
  hipEvent_t slab_copied_[2] = {nullptr, nullptr};  // read_state's two slab buffers filled
  bool rates_ready_ = false;                        // max_rate_ holds the signal rates of u0 (see plan_step)
};

}  // namespace

template <class Real, class L>
std::unique_ptr<Backend> make_hip_backend(const Grid& grid, const Physics& physics, const BoundaryFaces& boundary,
                                          const MemoryStrategy& memory, KernelStrategy kernels, int device) {
  return std::make_unique<HipBackend<Real, L>>(grid, physics, boundary, memory, kernels, device);
}

BackendScratch hip_device_scratch(std::size_t value_bytes) {
  // The constructor's max_rate_, results_ and control_; read_state's two slab buffers.
  const std::size_t rate = value_bytes == 8 ? sizeof(hip::RateBits<double>) : sizeof(hip::RateBits<float>);
  return {2, rate + sizeof(FixedSums) + sizeof(StepControl)};
}

DeviceInfo hip_device_info(int device) { return hip::describe_device(device); }

int hip_device_count(std::string* why) {
  int n = 0;
  const hipError_t error = hipGetDeviceCount(&n);
  if (error != hipSuccess) {
    (void)hipGetLastError();  // clear the sticky "no device" error
    if (why && error != hipErrorNoDevice) *why = hipGetErrorString(error);
    return 0;
  }
  return n;
}

#define HALOCLINE_INSTANTIATE(REAL, LAYOUT)                                                                           \
  template std::unique_ptr<Backend> make_hip_backend<REAL, LAYOUT>(const Grid&, const Physics&, const BoundaryFaces&, \
                                                                   const MemoryStrategy&, KernelStrategy, int);
HALOCLINE_FOR_EACH_PRECISION_AND_LAYOUT(HALOCLINE_INSTANTIATE)
#undef HALOCLINE_INSTANTIATE

}  // namespace halocline
