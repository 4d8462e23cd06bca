// The MPI layer (see comm.hpp). Every MPI call of Halocline is in this file.
#include "app/comm.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "io/deck.hpp"

#if defined(HALOCLINE_HAVE_MPI)
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support / MPIX_Query_rocm_support
#endif
#endif

namespace halocline {

namespace {

std::string dims_text(const std::array<int, 3>& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

#if defined(HALOCLINE_HAVE_MPI)
MPI_Comm& as_mpi(void* p) { return *static_cast<MPI_Comm*>(p); }

// Tag of a message of direction d arriving at face `side` of its receiver.
int halo_tag(int d, int side) { return 2 * d + side; }

int checked_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error(std::string(what) + " of " + std::to_string(n) + " elements exceeds one MPI message");
  return static_cast<int>(n);
}
#endif

}  // namespace

void initialize_comm(int& argc, char**& argv) {
#if defined(HALOCLINE_HAVE_MPI)
#if defined(OPEN_MPI)
  // Open MPI before 4.1.7 and 5.0.6 (Debian 12 has 4.1.4): OMPIO's collective writes on a local
  // file system lock nothing while its data sieving reads, fills and writes back the gaps
  // between a rank's pieces, so one aggregator can write stale bytes over another's: collective
  // snapshots of 3 or 4 ranks held zeros, junk or another variable's values, with exit 0
  // (open-mpi/ompi#12718; the fix locks the ranges written, as setting 3 asks). Read from the
  // environment by MPI_Init; a value the user set is kept.
  setenv("OMPI_MCA_fs_ufs_lock_algorithm", "3", 0);
#endif
  int initialized = 0;
  MPI_Initialized(&initialized);
  // FUNNELED: only the main thread calls MPI (the host side of the halo exchange).
  int provided = 0;
  if (!initialized) MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  // Errors come back as codes, so a bad call is reported by Halocline and not by an abort
  // with no message.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#else
  (void)argc;
  (void)argv;
#endif
}

bool launched_as_one_of_several_ranks() {
  // The job's size where a launcher says it: Open MPI, PMI (MPICH, Intel MPI, MVAPICH), Slurm.
  for (const char* size : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS"}) {
    const char* value = std::getenv(size);
    if (value && std::atol(value) > 1) return true;
  }
  return false;
}

void finalize_comm() {
#if defined(HALOCLINE_HAVE_MPI)
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
#endif
}

std::string mpi_library_version() {
#if defined(HALOCLINE_HAVE_MPI)
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);  // may be called before MPI_Init
  const std::string text(version);            // `length` counts a NUL at the end too (Open MPI)
  return text.substr(0, text.find('\n'));
#else
  return "";
#endif
}

bool comm_built_with_mpi() {
#if defined(HALOCLINE_HAVE_MPI)
  return true;
#else
  return false;
#endif
}

void abort_comm(int code) {
#if defined(HALOCLINE_HAVE_MPI)
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  int size = 1;
  if (initialized && !finalized) MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#else
  (void)code;
#endif
}

int world_rank() {
  int rank = 0;
#if defined(HALOCLINE_HAVE_MPI)
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
  return rank;
}

int world_size() {
  int size = 1;
#if defined(HALOCLINE_HAVE_MPI)
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
  return size;
}

namespace {
// The size of, or this rank's number in, the ranks of its node.
int on_this_node(bool rank) {
  int value = rank ? 0 : 1;
#if defined(HALOCLINE_HAVE_MPI)
  if (world_size() > 1) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank(), MPI_INFO_NULL, &node);
    rank ? MPI_Comm_rank(node, &value) : MPI_Comm_size(node, &value);
    MPI_Comm_free(&node);
  }
#endif
  return value;
}
}  // namespace

int ranks_on_this_node() { return on_this_node(false); }
int rank_on_this_node() { return on_this_node(true); }

std::vector<std::string> gather_over_ranks(const std::string& s) {
#if defined(HALOCLINE_HAVE_MPI)
  if (world_size() > 1) {
    const int ranks = world_size();
    int length = checked_count(s.size(), "a gathered string");
    std::vector<int> lengths(ranks), offsets(ranks);
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < ranks; ++r) offsets[r] = total, total += lengths[r];
    std::string all(total, '\0');
    MPI_Allgatherv(s.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (int r = 0; r < ranks; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
    return out;
  }
#endif
  return {s};
}

AgreedStatus agree_over_ranks(int code) {
  AgreedStatus s;
  s.code = code;
  s.rank = code ? world_rank() : -1;
  s.every_rank = code != 0;
#if defined(HALOCLINE_HAVE_MPI)
  if (world_size() > 1) {
    int highest = code;
    MPI_Allreduce(&code, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    // The lowest rank among those with the highest code speaks for the run.
    int mine = code != 0 && code == highest ? world_rank() : INT_MAX, lowest = INT_MAX;
    MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int lowest_code = code;
    MPI_Allreduce(&code, &lowest_code, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    s.code = highest;
    s.rank = highest ? lowest : -1;
    s.every_rank = highest != 0 && lowest_code == highest;
  }
#endif
  return s;
}

double sum_over_ranks(double x) {
  double sum = x;
#if defined(HALOCLINE_HAVE_MPI)
  if (world_size() > 1) MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
  return sum;
}

std::string broadcast_from(int root, const std::string& s) {
#if defined(HALOCLINE_HAVE_MPI)
  if (world_size() > 1) {
    unsigned long long length = s.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD);
    std::string out = s;
    out.resize(length);
    MPI_Bcast(out.data(), checked_count(length, "a broadcast string"), MPI_CHAR, root, MPI_COMM_WORLD);
    return out;
  }
#else
  (void)root;
#endif
  return s;
}

namespace {

// Whether ranks per direction `p` keep every rank at least kGhostLayers cells thick along
// each split direction; otherwise `why` names the first direction that breaks the rule.
bool thick_enough(const std::array<int, 3>& n, const std::array<int, 3>& p, std::string& why) {
  for (int d = 0; d < 3; ++d) {
    if (p[d] < 1 || p[d] > n[d]) {
      why = "puts " + std::to_string(p[d]) + " ranks along " + "xyz"[d] + ", which has " + std::to_string(n[d]) +
            (n[d] == 1 ? " cell" : " cells");
      return false;
    }
    if (p[d] > 1 && n[d] / p[d] < kGhostLayers) {
      why = "splits " + std::string(1, "xyz"[d]) + " (" + std::to_string(n[d]) + " cells) among " +
            std::to_string(p[d]) + " ranks, leaving a rank " + std::to_string(n[d] / p[d]) +
            " cell(s); every rank needs at least " + std::to_string(kGhostLayers) +
            " cells along a split direction (its neighbours' ghost layers)";
      return false;
    }
  }
  return true;
}

// The faces a split exchanges, in cells: per split direction, one cross-section per rank.
double halo_surface(const std::array<int, 3>& n, const std::array<int, 3>& p) {
  double cells = 0;
  for (int d = 0; d < 3; ++d)
    if (p[d] > 1) cells += static_cast<double>(p[d]) * n[(d + 1) % 3] * n[(d + 2) % 3];
  return cells;
}

// The balanced grid MPI_Dims_create makes, the most ranks along z (its faces are contiguous
// in memory, one block per message), x the fewest (the most strided faces).
std::array<int, 3> balanced_grid(const std::array<int, 3>& n, int ranks) {
  int free_dims[3] = {0, 0, 0}, nfree = 0;
  for (int d = 2; d >= 0; --d) nfree += n[d] > 1;
#if defined(HALOCLINE_HAVE_MPI)
  if (nfree > 0) MPI_Dims_create(ranks, nfree, free_dims);
#else
  (void)ranks;
  for (int i = 0; i < nfree; ++i) free_dims[i] = 1;
#endif
  std::array<int, 3> p{1, 1, 1};
  int next = 0;
  for (int d = 2; d >= 0; --d) p[d] = n[d] > 1 ? free_dims[next++] : 1;
  return p;
}

}  // namespace

std::array<int, 3> choose_process_grid(const std::array<int, 3>& n, const std::array<int, 3>& requested, int ranks) {
  std::string why;
  if (requested[0] || requested[1] || requested[2]) {
    const long product = static_cast<long>(requested[0]) * requested[1] * requested[2];
    if (product != ranks)
      throw DeckError("--ranks-grid " + dims_text(requested) + " has " + std::to_string(product) +
                      " ranks, but the run has " + std::to_string(ranks));
    if (!thick_enough(n, requested, why)) throw DeckError("--ranks-grid " + dims_text(requested) + " " + why);
    return requested;
  }
  if (ranks > 1 && n[0] * 1L * n[1] * n[2] == 1)
    throw DeckError("a one-cell domain cannot be split among " + std::to_string(ranks) + " ranks");
  const std::array<int, 3> balanced = balanced_grid(n, ranks);
  if (thick_enough(n, balanced, why)) return balanced;
  // MPI's choice leaves some rank too thin: the thick-enough split with the least halo
  // surface, ties going to more ranks along z, then y.
  const std::string balanced_why = why;
  std::array<int, 3> best{0, 0, 0};
  for (int pz = 1; pz <= ranks; ++pz)
    for (int py = 1; pz * py <= ranks; ++py) {
      if (ranks % (pz * py)) continue;
      const std::array<int, 3> p{ranks / (pz * py), py, pz};
      if (!thick_enough(n, p, why)) continue;
      if (best[0] == 0 || halo_surface(n, p) < halo_surface(n, best) ||
          (halo_surface(n, p) == halo_surface(n, best) && (p[2] > best[2] || (p[2] == best[2] && p[1] > best[1]))))
        best = p;
    }
  if (best[0] == 0)
    throw DeckError("cannot split the domain of " + dims_text(n) + " cells among " + std::to_string(ranks) +
                    " ranks: the balanced process grid " + dims_text(balanced) + " " + balanced_why +
                    ", and no other grid of " + std::to_string(ranks) + " ranks avoids that (use fewer ranks)");
  return best;
}

Comm::Comm(const std::array<int, 3>& n, const std::array<int, 3>& requested, const std::array<bool, 3>& periodic) {
#if defined(HALOCLINE_HAVE_MPI)
  MPI_Comm_size(MPI_COMM_WORLD, &pg_.size);
#endif
  pg_.dims = choose_process_grid(n, requested, pg_.size);

#if defined(HALOCLINE_HAVE_MPI)
  int dims[3] = {pg_.dims[0], pg_.dims[1], pg_.dims[2]};
  int wrap[3] = {periodic[0], periodic[1], periodic[2]};
  cart_ = new MPI_Comm(MPI_COMM_NULL);
  // reorder = 0: ranks keep their world numbers, so the node-local rank that picks the GPU
  // is the launcher's.
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, wrap, 0, &as_mpi(cart_));
  MPI_Comm_set_errhandler(as_mpi(cart_), MPI_ERRORS_RETURN);
  MPI_Comm_rank(as_mpi(cart_), &pg_.rank);
  int coords[3];
  MPI_Cart_coords(as_mpi(cart_), pg_.rank, 3, coords);
  for (int d = 0; d < 3; ++d) {
    pg_.coords[d] = coords[d];
    int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
    MPI_Cart_shift(as_mpi(cart_), d, 1, &lo, &hi);
    pg_.neighbour[d][0] = lo == MPI_PROC_NULL ? -1 : lo;
    pg_.neighbour[d][1] = hi == MPI_PROC_NULL ? -1 : hi;
  }
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, pg_.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &node_rank_);
  MPI_Comm_size(node, &node_size_);
  int mine = pg_.rank == 0, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, node);
  node_has_root_ = any != 0;
  MPI_Comm_free(&node);
#else
  for (int d = 0; d < 3; ++d) pg_.neighbour[d][0] = pg_.neighbour[d][1] = periodic[d] ? 0 : -1;
#endif
}

Comm::~Comm() {
#if defined(HALOCLINE_HAVE_MPI)
  if (cart_) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && as_mpi(cart_) != MPI_COMM_NULL) MPI_Comm_free(&as_mpi(cart_));
    delete static_cast<MPI_Comm*>(cart_);
  }
#endif
}

void Comm::exchange(int d, const HaloMessages& m) const {
#if defined(HALOCLINE_HAVE_MPI)
  const int count = checked_count(m.bytes, "a halo message");
  MPI_Request requests[4];
  int nreq = 0;
  for (int side = 0; side < 2; ++side)
    if (m.exchanged[side])
      MPI_Irecv(m.receive[side], count, MPI_BYTE, pg_.neighbour[d][side], halo_tag(d, side), as_mpi(cart_),
                &requests[nreq++]);
  for (int side = 0; side < 2; ++side)
    if (m.exchanged[side])
      MPI_Isend(m.send[side], count, MPI_BYTE, pg_.neighbour[d][side], halo_tag(d, 1 - side), as_mpi(cart_),
                &requests[nreq++]);
  if (MPI_Waitall(nreq, requests, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    throw std::runtime_error("MPI halo exchange along " + std::string(1, "xyz"[d]) + " failed");
#else
  // One rank: a periodic direction's neighbour is this rank (high face -> low ghosts).
  for (int side = 0; side < 2; ++side)
    if (m.exchanged[side]) std::memcpy(m.receive[side], m.send[1 - side], m.bytes);
#endif
}

double Comm::max(double x) const {
  max_in_place(&x, 1);
  return x;
}

void Comm::max_in_place(double* x, int n) const {
#if defined(HALOCLINE_HAVE_MPI)
  MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_MAX, as_mpi(cart_));
#else
  (void)x, (void)n;
#endif
}

std::uint64_t Comm::sum_mod64(std::uint64_t x) const {
  sum_mod64_in_place(&x, 1);
  return x;
}

void Comm::sum_mod64_in_place(std::uint64_t* x, int n) const {
#if defined(HALOCLINE_HAVE_MPI)
  MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_UINT64_T, MPI_SUM, as_mpi(cart_));  // unsigned: wraps modulo 2^64
#else
  (void)x, (void)n;
#endif
}

double Comm::sum(double x) const {
#if defined(HALOCLINE_HAVE_MPI)
  double out = x;
  MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_SUM, as_mpi(cart_));
  return out;
#else
  return x;
#endif
}

void Comm::min_max_mean(const std::vector<double>& x, std::vector<double>& mn, std::vector<double>& mx,
                        std::vector<double>& mean) const {
  mn = mx = mean = x;
#if defined(HALOCLINE_HAVE_MPI)
  const int n = static_cast<int>(x.size());
  MPI_Allreduce(x.data(), mn.data(), n, MPI_DOUBLE, MPI_MIN, as_mpi(cart_));
  MPI_Allreduce(x.data(), mx.data(), n, MPI_DOUBLE, MPI_MAX, as_mpi(cart_));
  MPI_Allreduce(x.data(), mean.data(), n, MPI_DOUBLE, MPI_SUM, as_mpi(cart_));
  for (double& m : mean) m /= pg_.size;
#endif
}

std::string Comm::broadcast(const std::string& s) const {
#if defined(HALOCLINE_HAVE_MPI)
  int length = static_cast<int>(s.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, as_mpi(cart_));
  std::string out = s;
  out.resize(length);
  MPI_Bcast(out.data(), length, MPI_CHAR, 0, as_mpi(cart_));
  return out;
#else
  return s;
#endif
}

std::vector<std::string> Comm::gather(const std::string& s) const {
#if defined(HALOCLINE_HAVE_MPI)
  int length = static_cast<int>(s.size());
  std::vector<int> lengths(root() ? pg_.size : 0), offsets(root() ? pg_.size : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, as_mpi(cart_));
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(total, '\0');
  MPI_Gatherv(s.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, as_mpi(cart_));
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  return out;
#else
  return {s};
#endif
}

void Comm::barrier() const {
#if defined(HALOCLINE_HAVE_MPI)
  MPI_Barrier(as_mpi(cart_));
#endif
}

// The header that ends a rank's blocks in Comm::funnel: its x size says how.
constexpr int kFunnelDone = -1, kFunnelFailed = -2;

void Comm::funnel(const std::function<void(const BlockSink&)>& produce, const BlockSink& take) const {
  if (root()) {
    std::exception_ptr failed;
    auto take_once = [&](const CellBlock& b, const double* values) {
      if (failed) return;  // the file is lost; the blocks are still received
      try {
        take(b, values);
      } catch (...) {
        failed = std::current_exception();
      }
    };
    try {
      produce(take_once);
    } catch (...) {
      if (!failed) failed = std::current_exception();  // the others are still received
    }
#if defined(HALOCLINE_HAVE_MPI)
    MPI_Comm comm = as_mpi(cart_);
    std::vector<double> buffer;
    for (int r = 1; r < pg_.size; ++r) {
      for (;;) {
        CellBlock b;
        int header[6];
        MPI_Recv(header, 6, MPI_INT, r, 110, comm, MPI_STATUS_IGNORE);
        if (header[3] == kFunnelFailed && !failed)  // a part of the whole is missing
          failed = std::make_exception_ptr(
              std::runtime_error("rank " + std::to_string(r) + " could not hand over its part of the state"));
        if (header[3] < 0) break;  // that rank is done
        std::copy(header, header + 3, b.offset);
        std::copy(header + 3, header + 6, b.n);
        buffer.resize(kNumVars * b.cells());
        MPI_Recv(buffer.data(), checked_count(buffer.size(), "a block of the state"), MPI_DOUBLE, r, 111, comm,
                 MPI_STATUS_IGNORE);
        take_once(b, buffer.data());
      }
    }
#endif
    if (failed) std::rethrow_exception(failed);
    return;
  }
#if defined(HALOCLINE_HAVE_MPI)
  MPI_Comm comm = as_mpi(cart_);
  auto send = [&](const CellBlock& b, const double* values) {
    int header[6] = {b.offset[0], b.offset[1], b.offset[2], b.n[0], b.n[1], b.n[2]};
    MPI_Send(header, 6, MPI_INT, 0, 110, comm);
    MPI_Send(values, checked_count(kNumVars * b.cells(), "a block of the state"), MPI_DOUBLE, 0, 111, comm);
  };
  int done[6] = {0, 0, 0, kFunnelDone, 0, 0};
  try {
    produce(send);
  } catch (...) {
    done[3] = kFunnelFailed;  // rank 0 must not write a file without this rank's part
    MPI_Send(done, 6, MPI_INT, 0, 110, comm);
    throw;
  }
  MPI_Send(done, 6, MPI_INT, 0, 110, comm);
#endif
}

bool Comm::device_aware(std::string& why) const {
#if defined(HALOCLINE_HAVE_MPI)
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  if (MPIX_Query_cuda_support()) return true;
  why =
      "this Open MPI was built with CUDA support, but MPIX_Query_cuda_support() says it is "
      "not available at run time";
  return false;
#elif defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
  if (MPIX_Query_rocm_support()) return true;
  why =
      "this Open MPI was built with ROCm support, but MPIX_Query_rocm_support() says it is "
      "not available at run time";
  return false;
#else
  const std::string name = mpi_library_version();
  why = "the MPI library (" + name.substr(0, std::min<std::size_t>(name.find(','), 40)) +
        ") does not report device-memory (CUDA or ROCm) support";
  return false;
#endif
#else
  why = "this build has no MPI";
  return false;
#endif
}

}  // namespace halocline
