#include "app/references.hpp"

#include <algorithm>
#include <sstream>

#include "app/benchmark_inputs.hpp"  // generated: the table's text
#include "io/deck.hpp"               // DeckError

namespace halocline {

std::vector<ReferenceChecksum> parse_reference_checksums(const std::string& text) {
  std::vector<ReferenceChecksum> table;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::istringstream words(line);
    ReferenceChecksum r;
    std::string rest;
    if (!(words >> r.deck >> r.size >> r.precision >> r.steps >> r.checksum) || (words >> rest) ||
        r.checksum.size() != 16 || r.size < 1 || r.steps < 1)
      throw DeckError("reference checksums, line " + std::to_string(number) +
                      ": expected 'deck size precision steps checksum', got '" + line + "'");
    table.push_back(r);
  }
  return table;
}

const std::vector<ReferenceChecksum>& reference_checksums() {
  static const std::vector<ReferenceChecksum> table = parse_reference_checksums(build::kReferenceChecksums);
  return table;
}

std::string reference_checksum(int size, const std::string& precision, long steps) {
  for (const ReferenceChecksum& r : reference_checksums())
    if (r.deck == "bench.toml" && r.size == size && r.precision == precision && r.steps == steps) return r.checksum;
  return "";
}

std::vector<int> reference_sizes(long steps) {
  std::vector<int> sizes;
  for (const ReferenceChecksum& r : reference_checksums())
    if (!reference_checksum(r.size, "fp64", steps).empty() && !reference_checksum(r.size, "fp32", steps).empty())
      sizes.push_back(r.size);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace halocline
