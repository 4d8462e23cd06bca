// The reference checksums `halocline benchmark` compares its runs with (run rule 2 of
// docs/procurement.md): inputs/reference_checksums.txt, made by the project itself with
// tools/reference_checksums.sh and built into the binary. Every layout, rank count and
// backend gives these bits in the strict-FP build, so one table serves CPUs and GPUs.
#pragma once

#include <string>
#include <vector>

namespace halocline {

struct ReferenceChecksum {
  std::string deck;  // bench.toml
  int size = 0;      // grid.n
  std::string precision;
  long steps = 0;  // the run's length, untimed steps included
  std::string checksum;
};

// Parses the table's lines "deck size precision steps checksum" ('#' starts a comment).
// DeckError naming the line for a malformed one.
std::vector<ReferenceChecksum> parse_reference_checksums(const std::string& text);

// The table built into this binary.
const std::vector<ReferenceChecksum>& reference_checksums();

// The reference of bench.toml at `size`, `precision`, after `steps` steps; empty when the
// table has none.
std::string reference_checksum(int size, const std::string& precision, long steps);

// The sizes the table has for both precisions after `steps` steps, smallest first: the
// sizes the benchmark may choose.
std::vector<int> reference_sizes(long steps);

}  // namespace halocline
