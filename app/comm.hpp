// MPI, and everything the solver asks of it, in one place: the Cartesian process grid,
// the halo messages of one direction, the global reductions, and bringing the subdomains'
// states to rank 0 block by block for the serial-HDF5 output (Comm::funnel).
//
// A build without MPI (HALOCLINE_HAVE_MPI undefined) runs as one rank through the same
// code: a periodic face's "neighbour" is then the rank itself and its message is a copy.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/grid.hpp"
#include "kernels/contract/halo_messages.hpp"
#include "kernels/contract/state_slabs.hpp"

namespace halocline {

// Where this rank sits in the process grid, and who is across each face.
struct ProcessGrid {
  std::array<int, 3> dims{1, 1, 1};    // ranks per direction
  std::array<int, 3> coords{0, 0, 0};  // this rank's position
  int rank = 0, size = 1;
  // Rank across face [direction][0 = low, 1 = high]; -1 where the face is a physical
  // boundary. With periodic boundaries and one rank along a direction it is this rank.
  int neighbour[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
};

// Initializes MPI (where built in) for the life of the process (a second call does nothing:
// main starts it before it reads the command line, app/select.cpp's RuntimeSession for any
// other caller); finalized by finalize_comm(), RuntimeSession's.
void initialize_comm(int& argc, char**& argv);
void finalize_comm();
// Whether an MPI launcher (mpirun, mpiexec, srun) started this process as one of several
// ranks, from the variables it sets; read before MPI starts.
bool launched_as_one_of_several_ranks();
bool comm_built_with_mpi();
// The MPI library's own description of itself, its first line ("Open MPI v4.1.4, package:
// ..."); empty in a build without MPI.
std::string mpi_library_version();
// Ends every rank of the job at once with `code` (MPI_Abort): for a failure that may be
// this rank's alone, which would leave the others waiting in MPI for ever. Without MPI,
// or with one rank, it does nothing and the caller returns normally.
void abort_comm(int code);

// This process's rank in the whole job, and how many there are (0 and 1 without MPI).
int world_rank();
int world_size();
// The ranks of MPI_COMM_WORLD on this rank's node (sharing its memory); 1 without MPI.
int ranks_on_this_node();
// This rank's number among them (0 to ranks_on_this_node() - 1; the Comm's node_rank()).
int rank_on_this_node();

// Where a set-up step left every rank: the highest exit code any rank reported (0: all went
// well) and the lowest rank that reported it (-1 when all went well).
struct AgreedStatus {
  int code = 0;
  int rank = -1;
  bool every_rank = false;  // every rank reported that code
};
// Every rank of the job passes its own status (0 or the exit code it would end with) and
// all get the same answer: one collective over all ranks, so that a failure on any rank
// ends every rank at the same point instead of leaving the others waiting in MPI.
AgreedStatus agree_over_ranks(int code);
// Rank `root`'s string on every rank of the job (a collective over all ranks).
std::string broadcast_from(int root, const std::string& s);
// The sum of every rank's `x` on every rank (a collective over all ranks).
double sum_over_ranks(double x);
// Every rank's `s`, in rank order, on every rank (a collective over all ranks).
std::vector<std::string> gather_over_ranks(const std::string& s);

// The ranks per direction of a run of `ranks` ranks over a domain of n cells per direction:
// `requested` when it is not all 0 (--ranks-grid), otherwise MPI's balanced choice (most
// ranks along z, then y, then x), or, where that choice breaks the rule below, the split
// with the smallest halo surface that keeps it. The rule: a direction split among several
// ranks gives every rank at least kGhostLayers cells along it, because a rank's ghost
// layers are filled from its neighbour's interior. Directions of one cell get one rank.
// Throws DeckError (exit code 2) naming the direction and the sizes when no grid can.
std::array<int, 3> choose_process_grid(const std::array<int, 3>& n, const std::array<int, 3>& requested, int ranks);

// The ranks of the run, arranged as a Cartesian grid over the domain.
class Comm {
 public:
  // Makes the process grid for a domain of n cells per direction, as
  // choose_process_grid(n, requested, ranks) chooses it; `periodic` says which directions
  // wrap. Throws DeckError (exit code 2) as that does.
  Comm(const std::array<int, 3>& n, const std::array<int, 3>& requested, const std::array<bool, 3>& periodic);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  const ProcessGrid& grid() const { return pg_; }
  int rank() const { return pg_.rank; }
  int size() const { return pg_.size; }
  bool root() const { return pg_.rank == 0; }

  // The MPI_Comm of the process grid, by address (for parallel HDF5); null without MPI.
  void* mpi_comm() const { return cart_; }

  // This rank's index among the ranks of its node: which GPU it takes.
  int node_rank() const { return node_rank_; }
  int node_size() const { return node_size_; }           // the ranks on this rank's node
  bool node_has_root() const { return node_has_root_; }  // rank 0 (the gathered state) is on it

  // Exchanges the messages of direction d with both neighbours (non-blocking sends and
  // receives, then a wait), and returns when this rank's receives have arrived. A message
  // sent from a rank's high face lands in its high neighbour's low ghosts, and back.
  void exchange(int d, const HaloMessages& m) const;

  double max(double x) const;  // over all ranks
  double sum(double x) const;
  std::uint64_t sum_mod64(std::uint64_t x) const;  // over all ranks, modulo 2^64
  // The same for n values at once, each replaced by its max (sum) over the ranks.
  void max_in_place(double* x, int n) const;
  void sum_mod64_in_place(std::uint64_t* x, int n) const;
  // Per element min, max and mean over all ranks (for the timers).
  void min_max_mean(const std::vector<double>& x, std::vector<double>& min, std::vector<double>& max,
                    std::vector<double>& mean) const;
  // The same string on every rank: rank 0's.
  std::string broadcast(const std::string& s) const;
  // Every rank's string, in rank order, on rank 0 (other ranks get an empty vector).
  std::vector<std::string> gather(const std::string& s) const;
  void barrier() const;

  // Brings every rank's blocks of values to rank 0, for a file that rank 0 alone writes:
  // `produce(give)` runs on every rank and hands its blocks (kNumVars * block.cells() values
  // each, kernels/contract/state_slabs.hpp) to `give`; on rank 0 they reach `take` at once,
  // then, rank by rank, the other ranks' as those make them. Rank 0 holds one block at a
  // time. When `take` or rank 0's own `produce` throws, rank 0 still receives every block
  // (no rank waits for ever) and throws afterwards; a rank whose `produce` throws tells
  // rank 0, which then throws too (its file would miss that rank's part), and throws.
  using BlockSink = std::function<void(const CellBlock&, const double*)>;
  void funnel(const std::function<void(const BlockSink&)>& produce, const BlockSink& take) const;

  // Whether the MPI library says it can send from and receive into device memory, and if
  // not, why (for --halo gpu-aware's error message).
  bool device_aware(std::string& why) const;

 private:
  ProcessGrid pg_;
  int node_rank_ = 0;
  int node_size_ = 1;
  bool node_has_root_ = true;
  void* cart_ = nullptr;  // the MPI_Comm of the Cartesian grid (an opaque pointer here)
};

}  // namespace halocline
