#include "app/probe.hpp"

#include "app/outputs.hpp"
#include "app/provenance.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include "app/select.hpp"
#include "io/deck.hpp"

namespace halocline {

nlohmann::json probe_json(const ProbeResult& r, const Provenance& provenance) {
  nlohmann::json transfers = nlohmann::json::array();
  for (const TransferPoint& p : r.transfers)
    transfers.push_back(
        {{"memory", p.memory}, {"direction", p.direction}, {"bytes", p.bytes}, {"best_s", p.best_s}, {"Bps", p.Bps()}});
  auto or_null = [](double v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); };
  auto rates = [](const ArithmeticRates& a) {
    return nlohmann::json{{"fma_per_s", a.fma_per_s}, {"div_per_s", a.div_per_s}, {"sqrt_per_s", a.sqrt_per_s}};
  };
  return {
      {"halocline_version", HALOCLINE_VERSION},
      {"provenance", provenance_json(provenance)},
      {"backend", r.backend},
      {"device", r.device_name},
      {"quick", r.quick},
      {"array_bytes", r.array_bytes},
      {"repetitions", r.repetitions},
      {"copy_Bps", r.copy_Bps},
      {"triad_Bps", r.triad_Bps},
      {"copy_median_Bps", r.copy_median_Bps},
      {"triad_median_Bps", r.triad_median_Bps},
      {"transfers", transfers},
      {"transfers_note", r.transfers_note},
      {"launch_s", or_null(r.launch_s)},
      {"launch_sync_s", or_null(r.launch_sync_s)},
      {"timer_resolution_s", or_null(r.timer_resolution_s)},
      {"timer", r.timer},
      {"arithmetic", {{"fp64", rates(r.fp64)}, {"fp32", rates(r.fp32)}}},
      {"definitions",
       {{"copy_Bps",
         "c[i] = a[i] over arrays of array_bytes: 2 x array_bytes / fastest of the "
         "repetitions (after 2 warm-ups), as BabelStream"},
        {"triad_Bps", "a[i] = b[i] + s c[i]: 3 x array_bytes / fastest repetition"},
        {"transfers",
         "one copy of `bytes` between device memory and host memory of each kind, "
         "fastest of 3-10 after a warm-up; managed: a prefetch migration of pages "
         "resident on the other side"},
        {"launch_s", "wall time per empty kernel, 1000 launched back to back"},
        {"launch_sync_s", "median wall time of one empty kernel launched and waited for"},
        {"timer_resolution_s", "smallest non-zero interval the phase timers' clock reads"},
        {"arithmetic",
         "operations per second of each precision on the whole device (a CPU backend: its threads), "
         "fastest of 3 or more runs: 32 independent chains per thread of mul_add (fma_per_s), of "
         "divisions (div_per_s) or of square roots (sqrt_per_s), kernels/rate_chains.hpp"}}},
  };
}

ProbeResult probe_from_json(const nlohmann::json& j) {
  ProbeResult r;
  r.backend = j.at("backend").get<std::string>();
  r.device_name = j.at("device").get<std::string>();
  r.quick = j.at("quick").get<bool>();
  r.array_bytes = j.at("array_bytes").get<std::size_t>();
  r.repetitions = j.at("repetitions").get<int>();
  r.copy_Bps = j.at("copy_Bps").get<double>();
  r.triad_Bps = j.at("triad_Bps").get<double>();
  r.copy_median_Bps = j.at("copy_median_Bps").get<double>();
  r.triad_median_Bps = j.at("triad_median_Bps").get<double>();
  for (const auto& p : j.at("transfers"))
    r.transfers.push_back({p.at("memory").get<std::string>(), p.at("direction").get<std::string>(),
                           p.at("bytes").get<std::size_t>(), p.at("best_s").get<double>()});
  r.transfers_note = j.at("transfers_note").get<std::string>();
  auto value = [&](const char* key) { return j.at(key).is_null() ? -1.0 : j.at(key).get<double>(); };
  r.launch_s = value("launch_s");
  r.launch_sync_s = value("launch_sync_s");
  r.timer_resolution_s = value("timer_resolution_s");
  r.timer = j.at("timer").get<std::string>();
  // A probe from before the rates has none: at() throws, and cached_probe measures again.
  auto rates = [](const nlohmann::json& a) {
    return ArithmeticRates{a.at("fma_per_s").get<double>(), a.at("div_per_s").get<double>(),
                           a.at("sqrt_per_s").get<double>()};
  };
  r.fp64 = rates(j.at("arithmetic").at("fp64"));
  r.fp32 = rates(j.at("arithmetic").at("fp32"));
  return r;
}

void print_probe(std::ostream& os, const ProbeResult& r) {
  auto gbs = [](double bps) { return bps / 1e9; };
  os << "probe: " << r.backend << " on " << r.device_name << (r.quick ? " (quick)" : "") << '\n'
     << std::fixed << std::setprecision(1) << "  copy   " << std::setw(9) << gbs(r.copy_Bps) << " GB/s best, "
     << gbs(r.copy_median_Bps) << " median (arrays of " << (r.array_bytes >> 20) << " MiB, " << r.repetitions
     << " repetitions)\n"
     << "  triad  " << std::setw(9) << gbs(r.triad_Bps) << " GB/s best, " << gbs(r.triad_median_Bps) << " median\n";
  for (const auto& [name, a] : {std::pair{"fp64", r.fp64}, std::pair{"fp32", r.fp32}})
    os << std::setprecision(1) << "  " << name << "   " << std::setw(9) << a.fma_per_s / 1e9 << " G fma/s, "
       << a.div_per_s / 1e9 << " G div/s, " << a.sqrt_per_s / 1e9 << " G sqrt/s\n";
  if (r.launch_s >= 0)
    os << std::setprecision(2) << "  kernel launch " << r.launch_s * 1e6 << " us back to back, "
       << r.launch_sync_s * 1e6 << " us launched and waited for\n"
       << std::setprecision(3) << "  timer resolution " << r.timer_resolution_s * 1e6 << " us (" << r.timer << ")\n";
  if (r.transfers.empty()) {
    os << "  host <-> device copies: " << r.transfers_note << '\n';
  } else {
    os << "\n  host <-> device copies, GB/s (best)\n  " << std::setw(10) << "bytes";
    const char* columns[6][2] = {{"h2d", "pageable"}, {"h2d", "pinned"}, {"h2d", "managed"},
                                 {"d2h", "pageable"}, {"d2h", "pinned"}, {"d2h", "managed"}};
    for (const auto& c : columns) os << std::setw(14) << (std::string(c[0]) + " " + c[1]);
    os << '\n';
    std::vector<std::size_t> sizes;
    for (const TransferPoint& p : r.transfers)
      if (sizes.empty() || sizes.back() != p.bytes) sizes.push_back(p.bytes);
    for (std::size_t bytes : sizes) {
      os << "  " << std::setw(10) << bytes;
      for (const auto& c : columns)
        for (const TransferPoint& p : r.transfers)
          if (p.bytes == bytes && p.direction == c[0] && p.memory == c[1])
            os << std::setw(14) << std::setprecision(2) << gbs(p.Bps());
      os << '\n';
    }
  }
  os << std::defaultfloat << std::setprecision(6);
}

std::string probe_cache_name(const std::string& backend, const std::string& device_name) {
  std::string name = "probe-" + backend + "-";
  for (char ch : device_name) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name + ".json";
}

void check_probe_cache(const std::string& out_dir, const std::string& backend, int device) {
  if (!backend_unavailable(parse_backend(backend, "--backend")).empty()) return;  // said by the run itself
  const std::string name = probe_cache_name(backend, describe_device(backend, device, "probe").name);
  check_output_file((std::filesystem::path(out_dir) / name).string(), "probe cache", {}, OutputKind::ProbeResult);
}

ProbeResult cached_probe(const std::string& out_dir, const std::string& backend, int device, std::string& source,
                         const Provenance& provenance) {
  namespace fs = std::filesystem;
  ProbeOptions options;
  options.quick = true;
  options.device = device;
  const std::string name = describe_device(backend, device, "probe").name;
  const fs::path path = fs::path(out_dir) / probe_cache_name(backend, name);
  std::ifstream in(path);
  if (in) {
    try {
      const nlohmann::json j = nlohmann::json::parse(in);
      // The same device of the same host: on a shared file system another node's cache (a
      // CPU is "Serial" on every node) would put this run's bandwidth in another's proportion.
      if (j.at("halocline_version").get<std::string>() == HALOCLINE_VERSION &&
          j.at("device").get<std::string>() == name &&
          j.at("provenance").at("host").get<std::string>() == provenance.host) {
        source = path.string();
        return probe_from_json(j);
      }
    } catch (const std::exception&) {
      // Not a probe of this version, or without its host: measured again and replaced below.
    }
  }
  const ProbeResult r = run_probe(backend, options);
  std::error_code ec;  // a directory that cannot be made is said by the write that follows
  fs::create_directories(path.parent_path(), ec);
  write_file_atomically(path.string(), probe_json(r, provenance).dump(2) + "\n", "probe cache");
  source = "measured";
  return r;
}

}  // namespace halocline
