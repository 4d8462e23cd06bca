// What `halocline benchmark` writes (docs/schemas/benchmark.schema.json, docs/procurement.md):
// the result JSON, and from that JSON alone the Markdown summary a buyer reads and the
// side-by-side table of `halocline compare` (one row per figure, one column per result).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "app/benchmark.hpp"
#include "app/report.hpp"  // cell_rate_text

namespace halocline {

// The value of the result JSON's "kind": what `compare` recognises a result by.
constexpr const char* kBenchmarkKind = "halocline benchmark result";
// The layout of benchmark.json this build writes and reads (`compare` refuses another).
constexpr int kBenchmarkFormatVersion = 1;

nlohmann::json benchmark_json(const BenchmarkResult& result);

// The figures of one result JSON, in order: (what, value as text).
std::vector<std::pair<std::string, std::string>> benchmark_figures(const nlohmann::json& result);

// The Markdown summary of one result.
std::string benchmark_markdown(const nlohmann::json& result);

// The lines the terminal shows at the end: the FOM, each configuration, the compliance.
std::string benchmark_terminal(const nlohmann::json& result);

// `text` as one Markdown table cell: no line break, every '|' escaped.
std::string markdown_cell(const std::string& text);

}  // namespace halocline
