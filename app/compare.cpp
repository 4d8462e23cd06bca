#include "app/compare.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "app/benchmark_output.hpp"
#include "io/deck.hpp"  // DeckError

namespace halocline {

// A benchmark's output directory stands for the benchmark.json in it. Only a regular file is
// read: a FIFO with no writer would be read for ever.
std::string benchmark_result_path(const std::string& given) {
  std::string path = given;
  std::error_code ec;
  if (std::filesystem::is_directory(given, ec)) {
    path = (std::filesystem::path(given) / "benchmark.json").string();
    const bool there = std::filesystem::exists(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)  // a folder this user cannot enter
      throw DeckError("compare: cannot read '" + path + "': " + ec.message());
    if (!there)
      throw DeckError("compare: '" + given +
                      "' is a directory with no benchmark.json (what `halocline benchmark --out " + given +
                      "` writes)");
  }
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw DeckError("compare: '" + path + "' is not a regular file, so not a halocline benchmark result");
  return path;
}

namespace {

// What in a result's figures cannot be (a file edited by hand, or damaged), or "": compare
// would print it as a figure (a size of 2^40 read as 0^3, a FOM below zero, a result called
// compliant beside a checksum that differs from its reference).
std::string inconsistency(const nlohmann::json& j) {
  const nlohmann::json& n = j.at("size").at("n");
  if (!n.is_number_integer() || n.get<long long>() < 2 || n.get<long long>() > (1 << 20))
    return "size.n " + n.dump() + " is not a size of 2 to 1048576";
  for (const nlohmann::json& c : j.at("configurations")) {
    const std::string name = c.value("name", "a configuration");
    const nlohmann::json& runs = c.at("runs");
    if (!runs.is_number_integer() || runs.get<long long>() < 1 || runs.get<long long>() > 1000000)
      return name + ": runs " + runs.dump() + " is not a count of runs";
    const nlohmann::json& fom = c.at("fom_cell_updates_per_s");
    if (!fom.is_number() || !(fom.get<double>() > 0) || !std::isfinite(fom.get<double>()))
      return name + ": fom_cell_updates_per_s " + fom.dump() + " is not a rate";
    const nlohmann::json& step = c.at("step_s");
    const double lo = step.at("min").get<double>(), mid = step.at("median").get<double>(),
                 hi = step.at("max").get<double>();
    if (!(0 < lo && lo <= mid && mid <= hi && std::isfinite(hi)))
      return name + ": step_s " + step.dump() + " is not min <= median <= max of times";
    if (j.at("compliant").get<bool>() && c.at("checksum_matches") != true)
      return name + ": compliant, but its checksum_matches is " + c.at("checksum_matches").dump();
  }
  return "";
}

}  // namespace

nlohmann::json read_benchmark_result(const std::string& given) {
  const std::string path = benchmark_result_path(given);
  std::ifstream in(path);
  if (!in) throw DeckError("compare: cannot read '" + path + "': " + std::strerror(errno));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    throw DeckError("compare: '" + path + "' is not JSON, so not a halocline benchmark result");
  }
  if (!j.is_object() || j.value("kind", "") != kBenchmarkKind)
    throw DeckError("compare: '" + path + "' is not a halocline benchmark result (no \"kind\": \"" + kBenchmarkKind +
                    "\"; `halocline benchmark` writes OUT/benchmark.json)");
  const nlohmann::json version = j.value("format_version", nlohmann::json());
  if (version != kBenchmarkFormatVersion)
    throw DeckError("compare: '" + path + "' is a benchmark result of format_version " + version.dump() +
                    "; this halocline reads format_version " + std::to_string(kBenchmarkFormatVersion));
  std::string why;
  try {
    benchmark_figures(j);
    why = inconsistency(j);
  } catch (const std::exception& e) {
    // The JSON library's words without its tag ("[json.exception.out_of_range.403] ").
    std::string why = e.what();
    const std::size_t tag = why.rfind("[json.exception.", 0) == 0 ? why.find("] ") : std::string::npos;
    if (tag != std::string::npos) why.erase(0, tag + 2);
    throw DeckError("compare: '" + path + "' is an incomplete benchmark result (" + why + ")");
  }
  if (!why.empty()) throw DeckError("compare: '" + path + "' is not a consistent benchmark result (" + why + ")");
  return j;
}

namespace {

// What keeps the columns' figures of merit from comparing machines: results of other sizes (a
// FOM depends on the size: caches, launch overheads, halo share) and results that broke a run
// rule. Empty where there is nothing to say.
std::string comparability_notes(const std::vector<std::string>& paths, const std::vector<nlohmann::json>& results) {
  std::ostringstream notes;
  std::set<int> sizes;
  std::string listed;
  for (const nlohmann::json& j : results) {
    const int n = j.at("size").at("n").get<int>();
    if (sizes.insert(n).second) listed += (listed.empty() ? "" : ", ") + std::to_string(n) + "^3";
  }
  if (sizes.size() > 1)
    notes << "\nNote: these results are of different sizes (" << listed
          << "); a FOM depends on the size, so compare machines at one size (`--size`).\n";
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!results[i].at("compliant").get<bool>())
      notes << "\nNote: " << paths[i]
            << " broke a run rule (its compliance row): its figures are not a benchmark result "
               "(docs/procurement.md).\n";
  return notes.str();
}

}  // namespace

std::string compare_markdown(const std::vector<std::string>& paths, const std::vector<nlohmann::json>& results) {
  std::vector<std::vector<std::pair<std::string, std::string>>> columns;
  for (const nlohmann::json& j : results) columns.push_back(benchmark_figures(j));
  std::ostringstream md;
  md << "| figure |";
  for (const std::string& p : paths) md << " " << markdown_cell(p) << " |";
  md << "\n| --- |";
  for (std::size_t i = 0; i < paths.size(); ++i) md << " --- |";
  md << '\n';
  for (std::size_t row = 0; !columns.empty() && row < columns[0].size(); ++row) {
    md << "| " << columns[0][row].first << " |";
    for (const auto& column : columns) md << " " << markdown_cell(column[row].second) << " |";
    md << '\n';
  }
  md << comparability_notes(paths, results);
  return md.str();
}

}  // namespace halocline
