#include "app/report.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <stdexcept>

namespace halocline {

namespace {

const char* const kTotalNames[5] = {"mass", "momentum_x", "momentum_y", "momentum_z", "energy"};

nlohmann::json totals_json(const Totals& t) {
  nlohmann::json j;
  for (int v = 0; v < 5; ++v) j[kTotalNames[v]] = t.sum[v];
  return j;
}

}  // namespace

nlohmann::json make_report(const Config& c, const RunResult& r) {
  nlohmann::json j;
  j["halocline_version"] = HALOCLINE_VERSION;
  j["config"] = {
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
  };
  j["steps"] = r.steps;
  j["sim_time"] = r.sim_time;
  j["wall_s"] = r.wall_s;
  j["loop_s"] = r.loop_s;
  j["bytes_allocated"] = r.device_bytes;
  j["fom"] = {{"cell_updates_per_s", r.cell_updates_per_s},
              {"definition", "interior cells x steps / time-step loop seconds (output excluded)"}};
  nlohmann::json timers = nlohmann::json::object();
  for (const PhaseStats& p : r.timers)
    timers[p.name] = {{"total_s", p.total_s}, {"calls", p.calls}, {"mean_s", p.mean_s()},
                      {"min_s", p.min_s},     {"max_s", p.max_s}};
  j["timers"] = timers;
  j["conservation"] = {{"initial", totals_json(r.initial)},
                       {"final", totals_json(r.final)},
                       {"max_relative_drift", max_relative_drift(r.initial, r.final)}};
  j["checksum"] = r.checksum;
  j["snapshots"] = r.snapshots;
  return j;
}

void write_report(const nlohmann::json& report, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  const fs::path tmp = target.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << report.dump(2) << '\n';
    if (!out) throw std::runtime_error("cannot write report '" + tmp.string() + "'");
  }
  fs::rename(tmp, target);
}

void print_summary(std::ostream& os, const Config& c, const RunResult& r) {
  os << "halocline " << HALOCLINE_VERSION << ": " << problem_name(c.problem) << " on "
     << c.n[0] << " x " << c.n[1] << " x " << c.n[2] << ", " << layout_name(c.layout) << ", "
     << precision_name(c.precision) << ", " << r.backend_description << '\n';
  os << "steps " << r.steps << ", t = " << r.sim_time << ", wall " << std::fixed
     << std::setprecision(3) << r.wall_s << " s, loop " << r.loop_s << " s\n";
  os << std::defaultfloat << std::setprecision(4) << "FOM " << r.cell_updates_per_s / 1e6
     << " M cell-updates/s\n\n";
  os << std::left << std::setw(26) << "phase" << std::right << std::setw(8) << "calls"
     << std::setw(12) << "total s" << std::setw(12) << "mean ms" << std::setw(12) << "min ms"
     << std::setw(12) << "max ms" << std::setw(8) << "% wall" << '\n';
  for (const PhaseStats& p : r.timers) {
    const double share = r.wall_s > 0 ? 100.0 * p.total_s / r.wall_s : 0.0;
    os << std::left << std::setw(26) << p.name << std::right << std::setw(8) << p.calls
       << std::fixed << std::setprecision(4) << std::setw(12) << p.total_s << std::setprecision(3)
       << std::setw(12) << p.mean_s() * 1e3 << std::setw(12) << p.min_s * 1e3 << std::setw(12)
       << p.max_s * 1e3 << std::setprecision(1) << std::setw(8) << share << '\n';
  }
  os << std::defaultfloat << std::setprecision(6);
  bool open = false;  // an outflow face lets mass, momentum and energy through
  for (const auto& faces : c.boundary)
    for (Boundary b : faces) open = open || b == Boundary::Outflow;
  os << "\nconservation: max relative drift " << max_relative_drift(r.initial, r.final)
     << (open ? " (outflow boundaries: not conserved)" : "")
     << "\nchecksum " << r.checksum << '\n';
}

}  // namespace halocline
