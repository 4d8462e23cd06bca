// The Kokkos backend: state and flux arrays as Kokkos Views in the default memory space,
// accessed through the layout accessor; the loops are in the headers beside this file
// (one per kernel). Instantiated below for every layout and precision.
//
// Streams are execution-space instances: `compute_` runs the stage kernels and `halo_` the
// exchange's kernels and copies; fences stand where the HIP backend records and waits for
// events. On the host execution spaces (Serial, OpenMP) both are the default instance, so
// the overlap strategy runs in the same order as on a GPU but does not overlap.
#include "kernels/kokkos/kokkos_backend.hpp"

#include <Kokkos_Core.hpp>
#include <fstream>
#include <string>

#include "kernels/kokkos/fluxes.hpp"
#include "kernels/kokkos/ghost_fill.hpp"
#include "kernels/kokkos/halo.hpp"
#include "kernels/kokkos/update.hpp"
#include "layouts/canonical.hpp"
#include "layouts/layouts.hpp"

namespace halocline {

namespace {

// Refuses, before allocating, a run whose arrays would not fit in the host memory the
// kernel says is available (MemAvailable): a clear message and exit code 2 rather than the
// out-of-memory killer in the middle of a run.
void check_host_memory(std::size_t needed) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") break;
    meminfo.ignore(256, '\n');
  }
  if (key != "MemAvailable:") return;  // not Linux: nothing to compare with
  const std::size_t available = kib * 1024;
  if (needed > available)
    throw ResourceError("this grid needs " + std::to_string(needed) + " bytes (" +
                        std::to_string(needed >> 30) + " GiB) of host memory for its arrays; " +
                        "the machine has " + std::to_string(available) + " bytes (" +
                        std::to_string(available >> 30) + " GiB) available");
}

template <class Real, class L>
class KokkosBackend final : public Backend {
 public:
  using View = Kokkos::View<Real*>;

  KokkosBackend(const Grid& grid, const Physics& physics, const BoundaryFaces& boundary)
      : grid_(grid), physics_(physics), boundary_(boundary) {
    const std::size_t size = L::storage_size(grid.ncells);
    int arrays = 3;
    for (int d = 0; d < 3; ++d) arrays += grid.active(d);
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible)
      check_host_memory(arrays * size * sizeof(Real));
    solution_[0] = View("u0", size);
    solution_[1] = View("unew", size);
    stage_ = View("u1", size);
    for (int d = 0; d < 3; ++d)
      if (grid.active(d)) flux_[d] = View("flux_" + std::string(1, "xyz"[d]), size);
  }

  std::string description() const override {
    return std::string("kokkos (") + Kokkos::DefaultExecutionSpace::name() + ")";
  }

  void set_state(const std::vector<double>& canonical) override {
    auto host = Kokkos::create_mirror_view(solution_[current_]);
    from_canonical<Real, L>(grid_, canonical, host.data());
    Kokkos::deep_copy(solution_[current_], host);
  }

  void get_state(std::vector<double>& canonical, Purpose /*purpose*/) override {
    auto host = Kokkos::create_mirror_view(solution_[current_]);
    Kokkos::deep_copy(host, solution_[current_]);
    to_canonical<Real, L>(grid_, host.data(), canonical);
  }

  // The controller lives on the host: a CPU execution space shares its memory, and the
  // reduction's result is on the host anyway. (A Kokkos GPU build will keep it in device
  // memory like the HIP backend.)
  void reset_control(const StepControl& initial) override { control_ = initial; }
  void set_stop(double t_stop, long step_limit) override {
    control_.t_stop = t_stop;
    control_.step_limit = step_limit;
  }
  void plan_step() override {
    double rate = static_cast<double>(
        kokkos_detail::max_signal_rate(compute_, grid_, physics_, state(Slot::U0)));
    if (global_max_) rate = global_max_(rate);
    halocline::plan_step(control_, rate, current_);
  }
  void finish_step() override {
    halocline::finish_step(control_);
    current_ ^= 1;  // stage 2 wrote the new state (or carried the old one) into unew
  }
  void select_after_fault(AfterFault which) override {
    Kokkos::fence();
    current_ = which == AfterFault::Broken ? control_.failed_array : 1 - control_.failed_array;
  }
  StepControl step_status(bool /*exact*/) override { return control_; }

  void fill_boundary(int d, Slot slot) override {
    if (!(control_.dt > 0)) return;
    kokkos_detail::fill_ghosts_along(stream_of_halo(), grid_, boundary_, state(slot), d);
  }

  void compute_fluxes(int d, Slot slot, const CellBox& cells) override {
    if (!(control_.dt > 0) || cells.empty()) return;
    kokkos_detail::compute_fluxes_along(compute_, grid_, physics_, cells, state(slot),
                                        ref_of(flux_[d]), d);
  }

  void update(int stage, const CellBox& cells) override {
    if (cells.empty()) return;
    if (!(control_.dt > 0)) {
      // A step past a stop carries u0 over; after a fault u0 is the last good state.
      if (stage == 2 && !control_.failed)
        kokkos_detail::carry_stage(compute_, grid_, cells, state(Slot::U0), next_solution());
      return;
    }
    StageUpdate st{};
    st.stage = stage;
    for (int d = 0; d < 3; ++d) {
      st.active[d] = grid_.active(d);
      st.dt_over_dx[d] = st.active[d] ? control_.dt / grid_.dx[d] : 0.0;
    }
    const StateRef<Real, L> flux[3] = {ref_of(flux_[0]), ref_of(flux_[1]), ref_of(flux_[2])};
    kokkos_detail::update_stage(compute_, grid_, cells, st, state(Slot::U0), state(Slot::U1),
                                stage == 1 ? state(Slot::U1) : next_solution(), flux);
  }

  // ---- Halo exchange ------------------------------------------------------------------
  void configure_halo(const HaloSetup& setup) override {
    halo_setup_ = setup;
    for (int d = 0; d < 3; ++d) {
      if (!setup.any(d)) continue;
      const std::size_t size = halo_message_size(grid_, d);
      for (int side = 0; side < 2; ++side) {
        send_[d][side] = View("halo_send", size);
        receive_[d][side] = View("halo_receive", size);
        // Kokkos::create_mirror always allocates: the staging buffers are distinct from
        // the device buffers even where the execution space is the host.
        send_host_[d][side] = Kokkos::create_mirror(send_[d][side]);
        receive_host_[d][side] = Kokkos::create_mirror(receive_[d][side]);
      }
    }
  }
  void begin_halo() override { compute_.fence(); }
  void end_halo() override { halo_.fence(); }
  void pack_halo(int d, Slot slot) override {
    kokkos_detail::halo_loop<true>(stream_of_halo(), grid_, state(slot), d,
                                   halo_setup_.exchanged[d], send_[d][0].data(), send_[d][1].data());
  }
  void halo_to_host(int d) override {
    for (int side = 0; side < 2; ++side)
      if (halo_setup_.exchanged[d][side])
        copy(send_host_[d][side], send_[d][side], Direction::DeviceToHost);
  }
  void wait_halo_sent(int) override { stream_of_halo().fence(); }
  HaloMessages halo_messages(int d) override {
    const bool staged = halo_setup_.staged();
    void* send[2];
    void* receive[2];
    for (int side = 0; side < 2; ++side) {
      send[side] = staged ? send_host_[d][side].data() : send_[d][side].data();
      receive[side] = staged ? receive_host_[d][side].data() : receive_[d][side].data();
    }
    return halo_setup_.messages(d, send, receive, halo_message_size(grid_, d) * sizeof(Real));
  }
  void halo_to_device(int d) override {
    for (int side = 0; side < 2; ++side)
      if (halo_setup_.exchanged[d][side])
        copy(receive_[d][side], receive_host_[d][side], Direction::HostToDevice);
  }
  void unpack_halo(int d, Slot slot) override {
    kokkos_detail::halo_loop<false>(stream_of_halo(), grid_, state(slot), d,
                                    halo_setup_.exchanged[d], receive_[d][0].data(),
                                    receive_[d][1].data());
  }

  void fence() override { Kokkos::fence(); }

  // Host clock with a fence at each mark: free on host execution spaces; on a Kokkos GPU
  // build it synchronizes, which the GPU issue replaces with events on the instance.
  std::unique_ptr<PhaseClock> make_clock(Stream stream) override {
    const kokkos_detail::Exec exec = stream == Stream::Halo ? stream_of_halo() : compute_;
    return std::make_unique<HostClock>([exec] { exec.fence(); });
  }

  DeviceInfo device_info() const override { return kokkos_device_info(); }

  // State and fluxes live in the execution space's own memory: nothing is copied. (A
  // Kokkos GPU build counts its deep copies here.)
  const TransferLog& transfers() const override { return transfers_; }

  std::size_t bytes_allocated() const override {
    std::size_t bytes = 0;
    for (const View& v : solution_) bytes += v.span() * sizeof(Real);
    bytes += stage_.span() * sizeof(Real);
    for (const View& v : flux_) bytes += v.span() * sizeof(Real);
    return bytes;
  }

 private:
  template <class V>
  StateRef<Real, L> ref_of(const V& view) const {
    return StateRef<Real, L>{view.data(), grid_.ncells};
  }
  StateRef<Real, L> state(Slot slot) const {
    return slot == Slot::U0 ? ref_of(solution_[current_]) : ref_of(stage_);
  }
  StateRef<Real, L> next_solution() const { return ref_of(solution_[1 - current_]); }

  // Where the exchange's work runs: the halo instance when the strategy overlaps.
  const kokkos_detail::Exec& stream_of_halo() const {
    return halo_setup_.strategy == HaloStrategy::Overlap ? halo_ : compute_;
  }

  // A deep copy between device and staging memory on the halo instance, counted where the
  // two are different memory (a GPU execution space).
  template <class Dst, class Src>
  void copy(const Dst& dst, const Src& src, Direction direction) {
    Kokkos::deep_copy(stream_of_halo(), dst, src);
    if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible)
      transfers_.add(direction, HostKind::Pageable, Purpose::Halo, src.span() * sizeof(Real));
  }

  Grid grid_;
  Physics physics_;
  BoundaryFaces boundary_;
  View solution_[2];  // u0 and unew, by turns (see Slot in app/backend.hpp)
  int current_ = 0;   // which of solution_ is u0
  View stage_;        // u1
  View flux_[3];  // empty for inactive directions
  kokkos_detail::Exec compute_, halo_;
  HaloSetup halo_setup_;
  View send_[3][2], receive_[3][2];                          // device messages
  typename View::HostMirror send_host_[3][2], receive_host_[3][2];  // host staging
  StepControl control_;
  TransferLog transfers_;
};

}  // namespace

template <class Real, class L>
std::unique_ptr<Backend> make_kokkos_backend(const Grid& grid, const Physics& physics,
                                             const BoundaryFaces& boundary) {
  return std::make_unique<KokkosBackend<Real, L>>(grid, physics, boundary);
}

#define HALOCLINE_INSTANTIATE(REAL, LAYOUT)                                              \
  template std::unique_ptr<Backend> make_kokkos_backend<REAL, LAYOUT>(const Grid&,       \
                                                                      const Physics&,    \
                                                                      const BoundaryFaces&);
HALOCLINE_FOR_EACH_PRECISION_AND_LAYOUT(HALOCLINE_INSTANTIATE)
#undef HALOCLINE_INSTANTIATE

DeviceInfo kokkos_device_info() {
  DeviceInfo info;
  info.kind = "cpu";
  info.name = Kokkos::DefaultExecutionSpace::name();
  info.compute_units = Kokkos::DefaultExecutionSpace().concurrency();
  info.runtime_version = "Kokkos " + std::to_string(KOKKOS_VERSION / 10000) + "." +
                         std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                         std::to_string(KOKKOS_VERSION % 100);
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
