// `halocline compare A.json B.json ...`: `halocline benchmark` results side by side, one
// Markdown table (a row per figure, a column per result) on stdout, and with --plot their
// figures of merit drawn by tools/plot.py. A command of its own rather than a benchmark
// option: it measures nothing and takes none of benchmark's options, and it runs anywhere
// the result files are, without a device.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace halocline {

// The file a result given as `given` is: `given`, or the benchmark.json in the directory
// `given` (a benchmark's --out). DeckError (exit code 2) in one line for a directory without
// one, or a path that is not a regular file (a FIFO, a device).
std::string benchmark_result_path(const std::string& given);

// The result JSON at `path` (or in the directory `path`: benchmark_result_path); DeckError
// (exit code 2) in one line when the file cannot be read, is not JSON, or is not a benchmark
// result (its "kind").
nlohmann::json read_benchmark_result(const std::string& path);

// The table of `results` (each named by its path).
std::string compare_markdown(const std::vector<std::string>& paths, const std::vector<nlohmann::json>& results);

}  // namespace halocline
