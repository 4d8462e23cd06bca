#include "app/benchmark_output.hpp"

#include <cstdio>
#include <sstream>

#include "app/driver.hpp"
#include "app/provenance.hpp"
#include "app/report.hpp"

namespace halocline {

namespace {

std::string number(const char* format, double x) {
  char text[64];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

std::string percent(double fraction) { return number("%.1f%%", 100 * fraction); }

nlohmann::json configuration_json(const BenchmarkConfiguration& c, double copy_Bps) {
  const double effective = c.median_s > 0 ? c.bytes_per_step / c.median_s : 0.0;
  return {
      {"name", c.name},
      {"layout", "soa"},
      {"precision", c.precision},
      {"runs", c.runs},
      {"repetitions_s", c.step_s},
      {"step_s", {{"min", c.min_s}, {"median", c.median_s}, {"max", c.max_s}}},
      {"spread", c.spread},
      {"timed_s", c.timed_s},
      {"cells", c.cells},
      {"fom_cell_updates_per_s", fom_cell_updates_per_s(c.cells, c.median_s)},
      {"effective_bandwidth_Bps", effective},
      {"fraction_of_copy_bandwidth", copy_Bps > 0 ? effective / copy_Bps : 0.0},
      {"checksum", c.checksum},
      {"reference_checksum", c.reference.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.reference)},
      {"checksum_matches", c.reference.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.checksum == c.reference)},
      {"config", c.config}};
}

const nlohmann::json& configuration(const nlohmann::json& result, const std::string& precision) {
  for (const nlohmann::json& c : result.at("configurations"))
    if (c.at("precision") == precision) return c;
  throw std::runtime_error("the result has no " + precision + " configuration");
}

std::string step_text(const nlohmann::json& c) {
  const nlohmann::json& s = c.at("step_s");
  return number("%.4g ms", s.at("median").get<double>() * 1e3) + " (" +
         number("%.4g", s.at("min").get<double>() * 1e3) + "-" + number("%.4g", s.at("max").get<double>() * 1e3) + ")";
}

// The spread of the repetitions, or what stands for it where one repetition has none (0.0%
// there read as a measured agreement).
std::string spread_text(const nlohmann::json& c) {
  if (c.at("repetitions_s").size() < 2) return "none (one repetition)";
  return percent(c.at("spread").get<double>());
}

std::string checksum_text(const nlohmann::json& c) {
  const std::string sum = c.at("checksum").get<std::string>();
  if (c.at("reference_checksum").is_null()) return sum + " (no reference)";
  return sum + (c.at("checksum_matches").get<bool>()
                    ? " = reference"
                    : " != reference " + c.at("reference_checksum").get<std::string>());
}

std::string compliance_text(const nlohmann::json& result) {
  if (result.at("compliant").get<bool>()) return "compliant";
  std::string text = "NON-COMPLIANT";
  for (const nlohmann::json& why : result.at("non_compliant_reasons")) text += "; " + why.get<std::string>();
  return text;
}

}  // namespace

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
  return out;
}

nlohmann::json benchmark_json(const BenchmarkResult& r) {
  nlohmann::json configurations = nlohmann::json::array();
  for (const BenchmarkConfiguration& c : r.configurations) configurations.push_back(configuration_json(c, r.copy_Bps));
  const nlohmann::json& fp64 = configurations.at(0);
  return {{"kind", kBenchmarkKind},
          {"format_version", kBenchmarkFormatVersion},
          {"halocline_version", HALOCLINE_VERSION},
          {"provenance", provenance_json(r.provenance)},
          {"compliant", r.compliant()},
          {"non_compliant_reasons", r.broken_rules},
          {"warnings", r.warnings},
          {"fom",
           {{"cell_updates_per_s", fp64.at("fom_cell_updates_per_s")},
            {"spread", fp64.at("spread")},
            {"fraction_of_copy_bandwidth", fp64.at("fraction_of_copy_bandwidth")},
            {"configuration", fp64.at("name")}}},
          {"size", {{"n", r.size}, {"cells", fp64.at("cells")}, {"chosen", r.size_reason}}},
          {"rules",
           {{"repeat", r.options.repeat},
            {"steps", r.options.steps},
            {"steps_per_run", kWarmupSteps + kTracedStepsUnsampled + r.options.repeat * r.options.steps},
            {"min_time_s", r.options.min_time_s},
            {"spread_warning", r.options.spread_warning}}},
          {"execution",
           {{"description", r.execution},
            {"ranks", r.ranks},
            {"threads_per_rank", r.threads_per_rank},
            {"cpu_cores", r.provenance.cpu_cores},
            {"device_kind", r.device.kind},
            {"device", r.device.name}}},
          {"verify", {{"checks", r.verify_checks}, {"passed", true}}},
          {"probe",
           {{"copy_Bps", r.copy_Bps},
            {"triad_Bps", r.triad_Bps},
            {"rank0_copy_Bps", r.probe.copy_Bps},
            {"array_bytes", r.probe.array_bytes},
            {"ranks", r.ranks},
            {"devices_counted", r.device.kind == "gpu" ? r.gpus_driven : r.ranks}}},
          {"configurations", configurations},
          {"definitions",
           {{"fom_cell_updates_per_s",
             "the figure of merit (docs/report.md): interior cells / median step time, the median over every "
             "repetition of every run of the configuration, a repetition's time the median of its block of steps"},
            {"spread", "(max - min) / median of the repetitions' step times"},
            {"fraction_of_copy_bandwidth",
             "the bytes a step must move (report traffic) / median step time / the probed copy bandwidth of the "
             "node (every rank's, probed at once)"},
            {"runs",
             "runs of the configuration, each of steps_per_run steps (4 untimed, then `repeat` blocks of `steps`), "
             "repeated until the timed steps add up to min_time_s"}}}};
}

std::vector<std::pair<std::string, std::string>> benchmark_figures(const nlohmann::json& j) {
  const nlohmann::json& p = j.at("provenance");
  const nlohmann::json& fp64 = configuration(j, "fp64");
  const nlohmann::json& fp32 = configuration(j, "fp32");
  auto text = [&](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  const double gib = 1024.0 * 1024.0 * 1024.0;
  std::string warnings;
  for (const nlohmann::json& w : j.at("warnings")) warnings += (warnings.empty() ? "" : "; ") + w.get<std::string>();
  return {
      {"compliance", compliance_text(j)},
      {"FOM, fp64 (cell updates/s)", cell_rate_text(fp64.at("fom_cell_updates_per_s").get<double>())},
      {"FOM spread, fp64", spread_text(fp64)},
      {"fraction of copy bandwidth, fp64", number("%.3f", fp64.at("fraction_of_copy_bandwidth").get<double>())},
      {"fp32 (cell updates/s)", cell_rate_text(fp32.at("fom_cell_updates_per_s").get<double>())},
      {"fp32 spread", spread_text(fp32)},
      {"median step fp64 (min-max)", step_text(fp64)},
      {"median step fp32 (min-max)", step_text(fp32)},
      {"checksum fp64", checksum_text(fp64)},
      {"checksum fp32", checksum_text(fp32)},
      {"probed copy bandwidth", number("%.4g GB/s", j.at("probe").at("copy_Bps").get<double>() / 1e9)},
      {"size", std::to_string(j.at("size").at("n").get<int>()) + "^3 (" + text(j.at("size").at("chosen")) + ")"},
      {"runs x repetitions x steps", std::to_string(fp64.at("runs").get<int>()) + " (fp64), " +
                                         std::to_string(fp32.at("runs").get<int>()) + " (fp32) x " +
                                         text(j.at("rules").at("repeat")) + " x " + text(j.at("rules").at("steps"))},
      {"execution", text(j.at("execution").at("description"))},
      {"CPU",
       text(p.at("cpu_model")) + ", " + text(p.at("cpu_cores")) + " cores, " + text(p.at("cpu_threads")) + " threads"},
      {"memory", number("%.1f GiB", p.at("memory_bytes").get<double>() / gib)},
      {"GPU", text(p.at("gpu")) + " (driver " + text(p.at("gpu_driver")) + ")"},
      {"compilers", text(p.at("cxx_compiler")) + "; GPU: " + text(p.at("gpu_compiler"))},
      {"MPI", text(p.at("mpi"))},
      {"HDF5", text(p.at("hdf5"))},
      {"OS, host", text(p.at("os")) + ", " + text(p.at("host"))},
      {"date", text(p.at("date"))},
      {"version, commit", text(p.at("version")) + ", " + text(p.at("commit")) +
                              (p.at("tree_clean").get<bool>() ? "" : " (tree modified)")},
      {"command line", "`" + text(p.at("command_line")) + "`"},
      {"warnings", warnings.empty() ? "none" : warnings},
  };
}

std::string benchmark_markdown(const nlohmann::json& j) {
  std::ostringstream md;
  md << "# Halocline benchmark: " << j.at("provenance").at("host").get<std::string>() << "\n\n"
     << (j.at("compliant").get<bool>() ? "**Compliant** with the run rules of docs/procurement.md.\n\n"
                                       : "**NON-COMPLIANT**: a run rule of docs/procurement.md was broken on purpose "
                                         "(`--non-compliant`); see below.\n\n")
     << "| figure | value |\n| --- | --- |\n";
  for (const auto& [what, value] : benchmark_figures(j))
    md << "| " << markdown_cell(what) << " | " << markdown_cell(value) << " |\n";
  md << "\nThe FOM is interior cells / median step time (docs/report.md); the fraction of copy bandwidth is the "
        "bytes a step must move over the median step time, against the probed copy bandwidth.\n";
  return md.str();
}

std::string benchmark_terminal(const nlohmann::json& j) {
  std::ostringstream os;
  for (const nlohmann::json& c : j.at("configurations"))
    os << "benchmark: " << c.at("name").get<std::string>() << ": "
       << cell_rate_text(c.at("fom_cell_updates_per_s").get<double>()) << ", median step " << step_text(c)
       << ", spread " << percent(c.at("spread").get<double>()) << ", "
       << number("%.3f", c.at("fraction_of_copy_bandwidth").get<double>()) << " of copy bandwidth, checksum "
       << checksum_text(c) << '\n';
  for (const nlohmann::json& w : j.at("warnings")) os << "benchmark: warning: " << w.get<std::string>() << '\n';
  os << "benchmark: FOM " << cell_rate_text(j.at("fom").at("cell_updates_per_s").get<double>())
     << " (soa fp64): " << compliance_text(j) << '\n';
  return os.str();
}

}  // namespace halocline
