#include "app/report.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include "app/arithmetic.hpp"
#include "app/info.hpp"
#include "app/outputs.hpp"
#include "app/phases.hpp"
#include "app/provenance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>

namespace halocline {

namespace {

// Why a run's report has no figure of merit (its rates are then null).
std::string no_step_timed() {
  return "no step was timed (a run's first " + std::to_string(kWarmupSteps + kTracedStepsUnsampled) +
         " steps are warm-up and traced, and the two after each output or checkpoint begin from an idle device; "
         "run more steps, or with fewer stops)";
}

// A measured rate against its ceiling: null where the rate was not measured (no step timed),
// 0 where the ceiling is unknown (a probe without it).
nlohmann::json fraction_or_null(double measured, double ceiling) {
  if (!(measured > 0)) return nullptr;
  return ceiling > 0 ? measured / ceiling : 0.0;
}

const char* const kTotalNames[5] = {"mass", "momentum_x", "momentum_y", "momentum_z", "energy"};

nlohmann::json totals_json(const Totals& t) {
  nlohmann::json j;
  for (int v = 0; v < 5; ++v) j[kTotalNames[v]] = t.sum[v];
  return j;
}

nlohmann::json count_json(const TransferCount& c) { return {{"calls", c.calls}, {"bytes", c.bytes}}; }

// Per direction: totals by purpose and by host-memory kind, and the step loop's per-step
// average (output copies are counted apart, under "output").
nlohmann::json transfers_json(const TransferLog& log, long steps) {
  nlohmann::json j;
  const char* const kinds[3] = {"pinned", "pageable", "managed"};
  const char* const purposes[kPurposes] = {"setup", "step", "output", "halo"};
  for (Direction d : {Direction::HostToDevice, Direction::DeviceToHost}) {
    nlohmann::json dj;
    for (int p = 0; p < kPurposes; ++p) {
      nlohmann::json pj = count_json(log.get(d, static_cast<Purpose>(p)));
      for (int k = 0; k < 3; ++k) {
        const TransferCount c = log.get(d, static_cast<HostKind>(k), static_cast<Purpose>(p));
        if (c.calls) pj[kinds[k]] = count_json(c);
      }
      dj[purposes[p]] = pj;
    }
    TransferCount step = log.get(d, Purpose::Step);
    step += log.get(d, Purpose::Halo);
    dj["per_step"] = {{"calls", steps ? double(step.calls) / steps : 0.0},
                      {"bytes", steps ? double(step.bytes) / steps : 0.0}};
    j[d == Direction::HostToDevice ? "h2d" : "d2h"] = dj;
  }
  return j;
}

// Median, min and max of the step times without the first two samples. On a GPU the host
// runs one step ahead, so the first two submissions return at once (the pipeline filling)
// and each later sample is the device time of the step two submissions back; on the CPU
// the first two steps are the warm-up.
nlohmann::json step_time_json(std::vector<double> t) {
  t.erase(t.begin(), t.begin() + std::min<std::size_t>(kWarmupSteps, t.size()));
  if (t.empty()) return {{"samples", 0}};
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  const double median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  return {{"median", median},
          {"min", t.front()},
          {"max", t.back()},
          {"samples", n},
          {"definition",
           "host time between step submissions; the first two (warm-up), the traced step with the one "
           "after it (timeline), and after each stop (output, checkpoint) the step asked past it and the "
           "two after it (begun from an idle device) excluded"}};
}

// The halo exchange's share of a step and how much of it the strategy hid behind compute.
nlohmann::json halo_json(const RunResult& r, double median_step) {
  double t_halo = 0, t_compute = 0;  // per step
  const double per_step = r.timed_steps ? 1.0 / r.timed_steps : 0.0;
  for (const PhaseStats& p : r.timers) {
    if (phase::writes_files(p.name)) continue;
    (phase::exchanges_halo(p.name) ? t_halo : t_compute) += p.total_s * per_step;
  }
  // Null where no step was timed, as the report's fom (a 0 would read as measured).
  const auto timed = [&](double seconds) { return median_step > 0 ? nlohmann::json(seconds) : nlohmann::json(); };
  nlohmann::json j = {{"strategy", halo_name(r.halo)},
                      {"t_halo_s", timed(t_halo)},
                      {"t_compute_s", timed(t_compute)},
                      {"t_step_s", timed(median_step)},
                      {"definitions",
                       {{"t_halo_s",
                         "per step, the sum of the exchange phases pack, d2h, h2d, unpack (device "
                         "events on the stream they run in) and mpi (host wall time), both stages"},
                        {"t_compute_s",
                         "per step, the sum of every other timed phase but output and checkpoint "
                         "(device events on the compute stream)"},
                        {"t_step_s", "median step time (step_time_s), warm-up excluded like the timers"},
                        {"hidden_fraction",
                         "(t_compute + t_halo - t_step) / t_halo, clipped to [0, 1]: the part "
                         "of the exchange that ran while the device computed"}}}};
  if (t_halo > 0 && median_step > 0) {
    const double hidden = (t_compute + t_halo - median_step) / t_halo;
    j["hidden_fraction"] = std::min(1.0, std::max(0.0, hidden));
  } else {
    j["hidden_fraction"] = nullptr;  // nothing exchanged: no faces with a neighbour
  }
  return j;
}

// The bytes a step must move through device memory with this algorithm, and what that is
// per second at the median step time.
nlohmann::json traffic_json(const Config& c, const RunResult& r, double median_step) {
  // Each kernel reading each of its input arrays once and writing each output once (interior cells;
  // neighbours come from caches). Split: the signal rate's pass 5 (its max folded in on chip),
  // per stage and active direction a flux kernel 5 + 5, stage-1 update 5 + 5 nd + 5, stage-2
  // update 10 + 5 nd + 5: 30 + 30 nd values per cell (120 in 3-D). Fused: stage 1 5 + 5, stage
  // 2 10 + 5, and the signal rate rides on stage 2 (no pass): 25 whatever nd (no flux arrays).
  int nd = 0;
  for (int d = 0; d < 3; ++d) nd += r.grid.active(d);
  const bool fused = r.kernels == KernelStrategy::Fused;
  const int values_per_cell = fused ? 25 : 30 + 30 * nd;
  const double value_bytes = c.precision == Precision::FP64 ? 8.0 : 4.0;
  const double bytes_per_step = values_per_cell * value_bytes * static_cast<double>(r.grid.ninterior);
  return {{"bytes_per_step", bytes_per_step},
          {"values_per_cell", values_per_cell},
          {"effective_bandwidth_Bps", positive_or_null(median_step > 0 ? bytes_per_step / median_step : 0.0)},
          {"definition", fused ? "fused kernels: 25 values per interior cell per step, over the median step time"
                               : "split kernels: (30 + 30 active directions) values per interior cell per "
                                 "step, over the median step time"}};
}

// What the run was: the deck's choices and the strategies it ran with.
nlohmann::json config_json(const Config& c, const RunResult& r) {
  nlohmann::json j = {
      {"backend", backend_name(c.backend)},
      {"backend_description", r.backend_description},
      {"layout", layout_name(c.layout)},
      {"precision", precision_name(c.precision)},
      {"deck", c.deck_path},
      {"problem", problem_name(c.problem)},
      {"grid", {c.n[0], c.n[1], c.n[2]}},
      {"gamma", c.physics.gamma},
      {"cfl", c.physics.cfl},
      {"limiter", limiter_name(c.physics.limiter)},
      {"riemann_solver", riemann_name(c.physics.riemann)},
      {"owner", owner_name(c.memory.owner)},
      {"host_mem", host_memory_name(c.memory.host_memory)},
      {"prefetch", c.memory.prefetch},
      {"halo", halo_name(r.halo)},
      {"kernels", kernels_name(r.kernels)},
      {"ranks", r.ranks},
      {"ranks_grid", {r.ranks_grid[0], r.ranks_grid[1], r.ranks_grid[2]}},
      {"output_mode", r.output_mode},
  };
  if (c.backend == BackendKind::Kokkos) j["kokkos_tile"] = kokkos_tile_name(c.kokkos_tile);
  if (r.kernels == KernelStrategy::Fused) j["fused_shape"] = r.fused_shape;
  return j;
}

nlohmann::json device_json(const DeviceInfo& d) {
  return {{"kind", d.kind},
          {"name", d.name},
          {"memory_bytes", positive_or_null(d.memory_bytes)},
          {"compute_units", d.compute_units},
          {"runtime_version", d.runtime_version},
          {"driver_version", d.driver_version}};
}

// The steps: how many, from where (a restart's checkpoint), which were timed, and the clocks.
void add_steps(nlohmann::json& j, const Config& c, const RunResult& r) {
  j["steps"] = r.steps;
  j["steps_this_run"] = r.steps - r.first_step;
  j["restarted_from"] = nullptr;
  if (!c.restart_path.empty())
    j["restarted_from"] = {{"checkpoint", c.restart_path},
                           {"step", r.first_step},
                           {"time", r.first_time},
                           {"changed", r.restart_changes ? nlohmann::json(*r.restart_changes) : nlohmann::json()}};
  j["steps_submitted"] = r.steps_submitted;
  j["timed_steps"] = {{"count", r.timed_steps},
                      {"definition", "steps the timers cover: those submitted after the first " +
                                         std::to_string(r.timed_steps_from) + " (warm-up)"}};
  j["sim_time"] = r.sim_time;
  j["wall_s"] = r.wall_s;
  j["loop_s"] = r.loop_s;
  nlohmann::json outside = nlohmann::json::object();
  for (const auto& [what, seconds] : r.outside_loop) outside[what] = seconds;
  j["outside_loop_s"] = outside;
}

// Memory: the backend's footprint where the state lives, and the host's peak: the memory
// plan's count for the node and for its largest rank (rank 0's, which writes this report,
// where the node has rank 0), and the kernel's (getrusage: the largest resident set so far,
// this rank): max_rss is one process's, to be read beside the largest rank's plan.
void add_memory(nlohmann::json& j, const RunResult& r) {
  j["bytes_allocated"] = r.device_bytes;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  j["host_bytes_peak"] = {{"planned", r.host_bytes_planned},
                          {"planned_largest_process", r.host_bytes_planned_largest_process},
                          {"max_rss", static_cast<double>(usage.ru_maxrss) * 1024.0}};
}

// The figure of merit (docs/report.md), as bench and benchmark compute it: null, with the
// reason, where no step was timed (a 0 would read as a measured rate); the traffic and the
// arithmetic it puts in proportion.
void add_rates(nlohmann::json& j, const Config& c, const RunResult& r, double median_step) {
  j["fom"] = {{"cell_updates_per_s",
               positive_or_null(fom_cell_updates_per_s(static_cast<double>(r.grid.ninterior), median_step))},
              {"definition", kFomDefinition}};
  if (!(median_step > 0)) j["fom"]["not_measured"] = no_step_timed();
  j["loop_cell_updates_per_s"] = r.loop_cell_updates_per_s;
  j["traffic"] = traffic_json(c, r, median_step);
  const bool active[3] = {r.grid.active(0), r.grid.active(1), r.grid.active(2)};
  const ArithmeticPath path = arithmetic_path(c.backend, r.kernels);
  j["arithmetic"] = arithmetic_json(
      cell_update_operations(path, c.physics.riemann, c.physics.limiter, active, c.precision), path, c.physics.riemann);
}

// The phases' timers: rank 0's, their sum per step, and each phase over the ranks.
void add_timers(nlohmann::json& j, const RunResult& r) {
  double sum = 0;  // a step's phases: what the kernels (and MPI) take, without gaps
  for (const PhaseStats& p : r.timers)
    if (!phase::writes_files(p.name)) sum += r.timed_steps ? p.total_s / r.timed_steps : 0.0;
  j["timers_sum_per_step_s"] = sum;
  nlohmann::json timers = nlohmann::json::object();
  for (const PhaseStats& p : r.timers)
    timers[p.name] = {
        {"total_s", p.total_s}, {"calls", p.calls}, {"mean_s", p.mean_s()}, {"min_s", p.min_s}, {"max_s", p.max_s}};
  j["timers"] = timers;
  nlohmann::json over_ranks = nlohmann::json::object();
  for (std::size_t i = 0; i < r.timers.size() && i < r.timers_mean_s.size(); ++i)
    over_ranks[r.timers[i].name] = {
        {"min_s", r.timers_min_s[i]}, {"max_s", r.timers_max_s[i]}, {"mean_s", r.timers_mean_s[i]}};
  j["timers_over_ranks"] = over_ranks;
}

nlohmann::json timeline_json(const RunResult& r) {
  nlohmann::json events = nlohmann::json::array();
  for (const TraceEvent& e : r.timeline)
    events.push_back({{"phase", e.phase}, {"stream", e.stream}, {"start_s", e.start_s}, {"end_s", e.end_s}});
  return {{"step", r.traced_step},
          {"events", events},
          {"definition",
           "the backend calls of one step (the first timed one, begun with the "
           "device idle): start and end on the clock of the stream each ran "
           "in (device events on a GPU), in seconds since the step began"}};
}

}  // namespace

nlohmann::json make_report(const Config& c, const RunResult& r) {
  nlohmann::json j;
  j["halocline_version"] = HALOCLINE_VERSION;
  j["provenance"] = provenance_json(r.provenance);
  j["info"] = info_json(r.device);
  j["config"] = config_json(c, r);
  j["device"] = device_json(r.device);
  j["transfers"] = transfers_json(r.transfers, r.steps - r.first_step);
  add_steps(j, c, r);
  add_memory(j, r);
  j["step_time_s"] = step_time_json(r.step_times);
  const double median_step = j["step_time_s"].value("median", 0.0);
  add_rates(j, c, r, median_step);
  add_timers(j, r);
  j["devices_over_ranks"] = r.devices_over_ranks;  // rank order: one GPU per rank shows here
  j["halo"] = halo_json(r, median_step);
  j["timeline"] = timeline_json(r);
  j["conservation"] = {{"initial", totals_json(r.initial)},
                       {"final", totals_json(r.final)},
                       {"max_relative_drift", max_relative_drift(r.initial, r.final)}};
  j["checksum"] = r.checksum;
  j["snapshots"] = r.snapshots;
  return j;
}

std::string device_identity(const DeviceInfo& d, const std::string& host) {
  if (!d.pci_bus_id.empty()) return host + " " + d.pci_bus_id;
  // No PCI address: the runtime's index tells a node's GPUs apart (the CPU is one).
  return host + " " + d.kind + " " + d.name + (d.kind == "gpu" ? " #" + std::to_string(d.device_index) : "");
}

std::string device_identity(const DeviceInfo& d) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return device_identity(d, host);
}

int devices_driven(const nlohmann::json& report) {
  const nlohmann::json list = report.value("devices_over_ranks", nlohmann::json::array());
  if (list.empty()) return 1;
  std::set<std::string> distinct;
  bool cpu = false;
  for (const nlohmann::json& d : list) {
    const std::string device = d.is_string() ? d.get<std::string>() : d.dump();
    distinct.insert(device);
    cpu = cpu || device.find(" cpu ") != std::string::npos;  // device_identity: "host cpu <name>"
  }
  return static_cast<int>(cpu ? list.size() : distinct.size());
}

void add_probe_to_report(nlohmann::json& j, const ProbeResult& probe, const std::string& source, int devices) {
  if (devices <= 0) devices = devices_driven(j);
  const double n = devices;
  j["probe"] = {{"copy_Bps", probe.copy_Bps},
                {"triad_Bps", probe.triad_Bps},
                {"array_bytes", probe.array_bytes},
                {"device", probe.device_name},
                {"source", source},
                {"devices_counted", devices}};
  const double effective = measured_or_zero(j["traffic"], "effective_bandwidth_Bps");
  j["fom"]["fraction_of_copy_bandwidth"] = fraction_or_null(effective, n * probe.copy_Bps);
  j["fom"]["fraction_definition"] =
      "traffic.effective_bandwidth_Bps / (probe.copy_Bps x probe.devices_counted): the bytes this strategy's "
      "step must move through device memory, at the measured step time, against the copy bandwidth of the "
      "devices the run drives";
  const ArithmeticRates& rates = j["config"].value("precision", "fp64") == "fp32" ? probe.fp32 : probe.fp64;
  add_arithmetic_limit(j, {n * rates.fma_per_s, n * rates.div_per_s, n * rates.sqrt_per_s});
}

void add_arithmetic_limit(nlohmann::json& j, const ArithmeticRates& rates) {
  if (!j.contains("arithmetic")) return;
  nlohmann::json& a = j["arithmetic"];
  const double limit = arithmetic_limit(arithmetic_count_from_json(a.at("per_cell_update")), rates);
  a["rates"] = {{"precision", j["config"].value("precision", "fp64")},
                {"fma_per_s", rates.fma_per_s},
                {"div_per_s", rates.div_per_s},
                {"sqrt_per_s", rates.sqrt_per_s}};
  a["limit_cell_updates_per_s"] = limit;
  a["definition"] =
      "per_cell_update: the operations of one interior cell-update (both RK stages) of `path`, counted "
      "from the physics on HLLC's star-region path; limit = 1 / (fma_slots / fma_per_s + div / div_per_s "
      "+ sqrt / sqrt_per_s), every add, mul, fma and compare one slot of the FMA pipe: an optimistic "
      "bound that ignores integer work, loads and latency (docs/report.md)";
  const double fom = measured_or_zero(j["fom"], "cell_updates_per_s");
  j["fom"]["fraction_of_arithmetic_limit"] = fraction_or_null(fom, limit);
}

void write_report(const nlohmann::json& report, const std::string& path, const std::string& what) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;  // a directory that cannot be made is said by the write that follows
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  write_file_atomically(path, report.dump(2) + "\n", what);
}

double measured_or_zero(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string cell_rate_text(double rate) {
  char text[48];
  std::snprintf(text, sizeof text, rate >= 1e9 ? "%.3g Gcell/s" : "%.3g Mcell/s", rate / (rate >= 1e9 ? 1e9 : 1e6));
  return text;
}

namespace {

// The report's fractions of the device's ceilings, where the probe gave them.
void print_ceilings(std::ostream& os, const nlohmann::json& report) {
  const nlohmann::json& fom = report.at("fom");
  if (!fom.contains("fraction_of_copy_bandwidth") || fom.at("fraction_of_copy_bandwidth").is_null()) return;
  char text[160];
  std::snprintf(text, sizeof text, "%.3f of the copy bandwidth, %.3f of the arithmetic limit",
                fom.at("fraction_of_copy_bandwidth").get<double>(),
                measured_or_zero(fom, "fraction_of_arithmetic_limit"));
  os << text;
  const double limit =
      report.contains("arithmetic") ? report["arithmetic"].value("limit_cell_updates_per_s", 0.0) : 0.0;
  if (limit > 0) os << " (" << cell_rate_text(limit) << ", " << report["arithmetic"]["path"].get<std::string>() << ")";
  os << '\n';
}

// What the drift line can expect of the run's boundaries, from the faces of its active
// directions only (an inactive direction's faces, outflow by default, see no flux): an outflow
// face lets mass, momentum and energy through; a reflecting wall keeps mass and energy and
// pushes on the gas, which can change its momentum (the drift above then is the momentum's, so
// the note gives mass's and energy's apart); periodic faces keep all five.
std::string conservation_note(const Config& c, const RunResult& r) {
  bool open = false, walls = false;
  for (int d = 0; d < 3; ++d)
    if (r.grid.active(d))
      for (Boundary b : c.boundary[d])
        open = open || b == Boundary::Outflow, walls = walls || b == Boundary::Reflecting;
  if (open) return " (outflow boundaries: not conserved)";
  if (!walls) return "";
  const auto drift = [&](int v) { return std::fabs(r.final.sum[v] - r.initial.sum[v]) / r.initial.abs_sum[v]; };
  std::ostringstream os;
  os << " (reflecting walls can change the momentum; mass drift " << drift(kRho) << ", energy drift " << drift(kEnergy)
     << ")";
  return os.str();
}

}  // namespace

void print_summary(std::ostream& os, const Config& c, const RunResult& r, const nlohmann::json& report) {
  os << "halocline " << HALOCLINE_VERSION << ": " << problem_name(c.problem) << " on " << c.n[0] << " x " << c.n[1]
     << " x " << c.n[2] << ", " << layout_name(c.layout) << ", " << precision_name(c.precision) << ", "
     << r.backend_description << '\n';
  if (r.kernels == KernelStrategy::Fused) os << "fused stage: " << r.fused_shape << '\n';
  os << "steps " << r.steps;
  if (r.first_step > 0)
    os << " (" << r.steps - r.first_step << " of them in this run, from step " << r.first_step << ")";
  os << ", t = " << r.sim_time << ", wall " << std::fixed << std::setprecision(3) << r.wall_s << " s, loop " << r.loop_s
     << " s\n";
  double outside = 0;
  for (const auto& lap : r.outside_loop) outside += lap.second;
  os << "outside the loop " << outside << " s:";
  for (const auto& [what, seconds] : r.outside_loop) os << ' ' << what << ' ' << seconds;
  os << '\n';
  const nlohmann::json steps = step_time_json(r.step_times);
  const double median = steps.value("median", 0.0);
  if (median > 0)
    os << "FOM " << cell_rate_text(fom_cell_updates_per_s(static_cast<double>(r.grid.ninterior), median))
       << " (interior cells / median step time)\n";
  else  // the report's fom is then null, with this reason and step_time_s.samples 0
    os << "FOM not measured: " << no_step_timed() << '\n';
  print_ceilings(os, report);
  os << '\n';
  os << std::left << std::setw(26) << "phase" << std::right << std::setw(8) << "calls" << std::setw(12) << "total s"
     << std::setw(12) << "mean ms" << std::setw(12) << "min ms" << std::setw(12) << "max ms" << std::setw(8) << "% wall"
     << '\n';
  for (const PhaseStats& p : r.timers) {
    const double share = r.wall_s > 0 ? 100.0 * p.total_s / r.wall_s : 0.0;
    os << std::left << std::setw(26) << p.name << std::right << std::setw(8) << p.calls << std::fixed
       << std::setprecision(4) << std::setw(12) << p.total_s << std::setprecision(3) << std::setw(12)
       << p.mean_s() * 1e3 << std::setw(12) << p.min_s * 1e3 << std::setw(12) << p.max_s * 1e3 << std::setprecision(1)
       << std::setw(8) << share << '\n';
  }
  os << std::defaultfloat << std::setprecision(6);
  os << "\nconservation: max relative drift " << max_relative_drift(r.initial, r.final) << conservation_note(c, r)
     << "\nchecksum " << r.checksum << '\n';
}

}  // namespace halocline
