// HDF5 snapshots of the primitive variables, each with an XDMF file that ParaView opens,
// and a time-series XDMF tying all snapshots of a run together.
#pragma once

#include <string>
#include <vector>

#include "kernels/grid.hpp"

namespace halocline {

struct SnapshotInfo {
  std::string h5_path;
  std::string xmf_path;
};

class SnapshotWriter {
 public:
  // `grid` gives the interior size, origin and spacing; `single_precision` stores the
  // datasets as 32-bit floats (an fp32 run), otherwise as 64-bit.
  SnapshotWriter(std::string out_dir, const Grid& grid, bool single_precision,
                 std::string prefix = "snapshot");

  // Writes snapshot number `index`. `prim` holds the interior cells' primitive variables
  // rho, u, v, w, p, variable-major, each variable in canonical order (x fastest, then y,
  // then z), ninterior values each. Files are written under a temporary name and renamed,
  // so a file with the final name is always complete.
  SnapshotInfo write(int index, long step, double time, const std::vector<double>& prim);

  // (Re)writes <prefix>.xmf, the temporal collection of every snapshot written so far.
  void write_series() const;

  const std::vector<SnapshotInfo>& written() const { return written_; }

 private:
  std::string out_dir_;
  Grid grid_;
  bool single_;
  std::string prefix_;
  std::vector<SnapshotInfo> written_;
  std::vector<double> times_;
};

}  // namespace halocline
