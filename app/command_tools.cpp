// `halocline probe`, `info` and `verify`: what the machine measures and is, and the verification
// problems.
#include "app/commands.hpp"

#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/failures.hpp"
#include "app/info.hpp"
#include "app/outputs.hpp"
#include "app/report.hpp"
#include "app/signals.hpp"
#include "app/verify.hpp"
#include "io/deck.hpp"

namespace halocline::cli {

namespace {}  // namespace

int do_probe(const ProbeArgs& a, hc::Provenance provenance) {
  // One process measures one device: ranks of one job would each probe (sharing a device
  // or not), and the second would meet the first's lock on --out. Every rank refuses alike.
  hc::agreed([&] {
    if (hc::world_size() > 1)
      throw hc::DeckError("probe measures one device from one process, and this job has " +
                          std::to_string(hc::world_size()) + " ranks: run it without mpirun (--device picks the GPU)");
  });
  hc::ProbeOptions options;
  options.quick = a.quick;
  options.device = a.device;
  const int devices = hc::device_count(a.backend);
  if (a.device >= devices)
    throw hc::DeckError("probe --device " + std::to_string(a.device) + ": the " + a.backend + " backend has " +
                        (devices == 1
                             ? std::string("one device here, 0")
                             : std::to_string(devices) + " devices here, 0 to " + std::to_string(devices - 1)));
  if (!a.json.empty()) hc::check_output_file(a.json, "--json", {}, hc::OutputKind::ProbeResult);
  // The probe's file goes where no run is writing now: --out is locked as a run's is (a run
  // there reads the cache, and a probe beside a run on the same device measures a shared one),
  // and --json lies in no running run's directory. Declared before `made`, so that the lock
  // goes last and takes the directory with it when the probe wrote nothing.
  hc::OutputDirectory out_dir;
  // Directories made for the probe's files are removed again if anything fails.
  struct Made {
    std::vector<std::string> dirs;
    bool keep = false;
    ~Made() {
      if (!keep) hc::remove_if_empty(dirs);
    }
  } made;
  auto make = [&](const std::string& dir) {
    for (const std::string& d : hc::create_writable_directory(dir)) made.dirs.push_back(d);
  };
  hc::install_stop_signals();  // a signal ends the probe after its measurement, the lock removed
  if (!a.out.empty()) {
    hc::check_probe_cache(a.out, a.backend, a.device);
    out_dir.open(a.out);
  }
  const std::filesystem::path json_dir = std::filesystem::path(a.json).parent_path();
  if (!a.json.empty()) {
    hc::check_not_in_running_output(json_dir.empty() ? "." : json_dir.string(), "--json directory", a.out);
    hc::check_output_file(a.json, "--json", {}, hc::OutputKind::ProbeResult);  // again: it may be the lock just taken
  }
  if (!json_dir.empty()) make(json_dir.string());
  const hc::ProbeResult r = hc::run_probe(a.backend, options);
  if (const int signal = hc::stop_signal())
    throw hc::AgreedExit(
        hc::ExitStatus{128 + signal, "",
                       "probe: interrupted by signal " + std::to_string(signal) + "; nothing was written", true, -1});
  hc::print_probe(std::cout, r);
  hc::add_device(provenance, hc::describe_device(a.backend, a.device, "probe"));
  const nlohmann::json j = hc::probe_json(r, provenance);
  if (!a.out.empty()) {
    // Where runs writing into the same directory find it (cached_probe).
    const std::string path = (std::filesystem::path(a.out) / hc::probe_cache_name(r.backend, r.device_name)).string();
    hc::write_report(j, path, "probe");
    std::cout << "probe " << path << '\n';
  }
  if (!a.json.empty()) hc::write_report(j, a.json, "probe JSON");
  made.keep = true;
  return 0;
}

CLI::App* add_probe_command(CLI::App& app, ProbeArgs& a) {
  CLI::App* probe = app.add_subcommand("probe",
                                       "measure the machine: copy and triad bandwidth, "
                                       "host <-> device copies by size, launch latency");
  probe->add_option("--backend", a.backend, "kokkos | hip (default: the first built in)")
      ->check(CLI::IsMember({"kokkos", "hip"}));
  probe->add_option("--device", a.device, "GPU index")->capture_default_str()->check(in_range(0, 1 << 20));
  probe->add_option("--out", a.out, "also write it where runs into this directory find it (default: none)")
      ->check(non_empty());
  probe->add_option("--json", a.json, "also write the JSON here (default: none)")->check(non_empty());
  probe->add_flag("--quick", a.quick, "copy, triad and the arithmetic rates only");
  return probe;
}

int do_info(const InfoArgs& a, hc::Provenance provenance) {
  const hc::DeviceInfo device = hc::describe_device(a.backend, 0, "info");
  hc::add_device(provenance, device);
  nlohmann::json info = hc::info_json(device);
  info["provenance"] = hc::provenance_json(provenance);
  if (a.json)
    std::cout << info.dump(2) << '\n';
  else
    hc::print_info(std::cout, info);
  return 0;
}

CLI::App* add_info_command(CLI::App& app, InfoArgs& a) {
  CLI::App* info = app.add_subcommand("info", "describe the device and the build");
  info->add_option("--backend", a.backend, "kokkos | hip (default: the first built in)")
      ->check(CLI::IsMember({"kokkos", "hip"}));
  info->add_flag("--json", a.json, "as JSON");
  return info;
}

int do_verify() {
  // Every rank runs every check (the runs are collective); rank 0 speaks.
  std::ostringstream elsewhere;
  std::ostream& os = hc::world_rank() == 0 ? std::cout : elsewhere;
  const std::vector<hc::Check> checks = hc::run_verification(os);
  int failed = 0;
  for (const hc::Check& c : checks) failed += !c.pass;
  os << (checks.size() - failed) << " passed, " << failed << " failed\n";
  return failed ? 1 : 0;
}

}  // namespace halocline::cli
