// The end-of-run report: a human table of the per-phase timers on a stream, and the JSON
// report whose fields docs/report.md describes.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "app/config.hpp"
#include "app/driver.hpp"

namespace halocline {

nlohmann::json make_report(const Config& config, const RunResult& result);

// Writes the report atomically (temporary file + rename); throws std::runtime_error.
void write_report(const nlohmann::json& report, const std::string& path);

void print_summary(std::ostream& os, const Config& config, const RunResult& result);

}  // namespace halocline
