// The backend contract (kernels/contract/backend.hpp), tested by driving a backend's calls
// directly, without the driver: written once, instantiated for every backend built in (as
// Cabana's test harness does). A backend this machine cannot run (hip without a GPU) is
// skipped, saying why.
//   - the state goes in and comes back unchanged, in every layout and precision;
//   - the boundary fill of every kind, direction and face, and the halo pack and unpack,
//     leave value for value what the host reference (kernels/boundary.hpp, kernels/halo.hpp)
//     does from the same state; the ghosts are read through packed messages, which carry
//     the other directions' ghosts;
//   - the copies between host and device are counted where the state crosses them.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "app/problems.hpp"
#include "app/resources.hpp"
#include "app/select.hpp"
#include "base/grid.hpp"
#include "io/config.hpp"
#include "kernels/boundary.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/contract/footprint.hpp"
#include "kernels/contract/solver_arrays.hpp"
#include "kernels/halo.hpp"
#include "kernels/stencil.hpp"
#include "layouts/layouts.hpp"

namespace hc = halocline;

namespace {

// Values exactly representable in fp32 too, distinct for every (variable, cell), and a
// physical state (positive density and pressure: momenta small against the energy), so
// that a step can be planned on it.
std::vector<double> tagged_state(const hc::Grid& g) {
  std::vector<double> s(hc::kNumVars * g.ninterior);
  const double base[hc::kNumVars] = {1, 0.25, 0.5, 0.75, 1000};
  for (int v = 0; v < hc::kNumVars; ++v)
    for (std::size_t c = 0; c < g.ninterior; ++c) s[v * g.ninterior + c] = base[v] + static_cast<double>(c) / 1024;
  return s;
}

// The whole state of a backend over grid `g`, canonical, through its slabs, and back: the
// contract has no whole-state copy (no caller of the program needs one), tests alone do.
std::vector<double> state_of(hc::Backend& b, const hc::Grid& g, hc::Purpose purpose = hc::Purpose::Output) {
  std::vector<double> whole(hc::kNumVars * g.ninterior);
  b.read_state(
      [&](const hc::StateSlab& slab) { hc::place_block(slab.block, slab.values, hc::block_of(g), whole.data()); },
      purpose);
  return whole;
}
// A slab is whole z-planes (SlabPlan), so its values are one run of each variable's.
void put_state(hc::Backend& b, const hc::Grid& g, const std::vector<double>& whole) {
  b.write_state([&](const hc::CellBlock& block, double* values) {
    const std::size_t cells = block.cells(), first = std::size_t(block.offset[2]) * g.n[0] * g.n[1];
    for (int v = 0; v < hc::kNumVars; ++v) {
      const double* from = whole.data() + v * g.ninterior + first;
      std::copy(from, from + cells, values + v * cells);
    }
  });
}

struct Case {
  hc::LayoutKind layout;
  hc::Precision precision;
};
const Case kCases[] = {{hc::LayoutKind::AoS, hc::Precision::FP64},   {hc::LayoutKind::SoA, hc::Precision::FP64},
                       {hc::LayoutKind::AoSoA, hc::Precision::FP64}, {hc::LayoutKind::AoS, hc::Precision::FP32},
                       {hc::LayoutKind::SoA, hc::Precision::FP32},   {hc::LayoutKind::AoSoA, hc::Precision::FP32}};

std::string name_of(const Case& c) {
  return std::string(hc::layout_name(c.layout)) + " " + hc::precision_name(c.precision);
}

class Contract : public ::testing::TestWithParam<hc::BackendKind> {
 protected:
  void SetUp() override {
    const std::string why = hc::backend_unavailable(GetParam());
    if (!why.empty()) GTEST_SKIP() << why;
  }

  // A backend over a 5 x 4 x 3 grid (uneven, every direction active) in layout and
  // precision `c`, with faces `faces` and, optionally, the halo set-up `halo`.
  std::unique_ptr<hc::Backend> make(const Case& c, const hc::BoundaryFaces& faces,
                                    hc::Owner owner = hc::Owner::Device) {
    hc::Config config;
    config.backend = GetParam();
    config.layout = c.layout;
    config.precision = c.precision;
    config.memory.owner = owner;
    config.n = {5, 4, 3};
    grid_ = hc::grid_of(config);
    return hc::make_backend(config, grid_, faces);
  }

  // The same, exchanging the faces `faces` marks (staged), holding tagged_state() with a
  // step planned, so that the stage's calls do their work.
  std::unique_ptr<hc::Backend> make_exchanging(const Case& c, const hc::BoundaryFaces& faces);

  hc::Grid grid_;
};

hc::BoundaryFaces all_faces(hc::Boundary b) {
  hc::BoundaryFaces f;
  for (auto& dir : f.face) dir[0] = dir[1] = b;
  return f;
}

TEST_P(Contract, StateRoundTripInEveryLayoutAndPrecision) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(name_of(c));
    std::unique_ptr<hc::Backend> b = make(c, all_faces(hc::Boundary::Outflow));
    const std::vector<double> in = tagged_state(grid_);
    put_state(*b, grid_, in);
    EXPECT_EQ(state_of(*b, grid_), in);
  }
}

// read_state hands over exactly the state's values, slab by slab in order of z, each cell
// once: in one slab, in slabs of one plane (an odd count, so the HIP backend's two slab
// buffers take turns) and of two planes (a short last one), in every owner model the
// backend has; a `take` that throws leaves the backend ready for the next read. write_state
// fills the state back slab by slab.
TEST_P(Contract, StateSlabsAreTheState) {
  std::vector<hc::Owner> owners = {hc::Owner::Device};
  if (hc::runs_on_gpu(GetParam())) owners = {hc::Owner::Device, hc::Owner::Host, hc::Owner::Managed};
  for (const Case& c : kCases)
    for (hc::Owner owner : owners) {
      SCOPED_TRACE(name_of(c) + ", owner " + hc::owner_name(owner));
      std::unique_ptr<hc::Backend> b = make(c, all_faces(hc::Boundary::Outflow), owner);
      const std::vector<double> in = tagged_state(grid_);
      put_state(*b, grid_, in);
      const std::size_t plane = hc::kNumVars * sizeof(double) * grid_.n[0] * grid_.n[1];
      // Thrown at the first of three slabs: the next one's copy is in flight.
      EXPECT_THROW(b->read_state([](const hc::StateSlab&) { throw std::runtime_error("a full disk"); },
                                 hc::Purpose::Output, plane),
                   std::runtime_error);
      EXPECT_THROW(
          b->write_state([](const hc::CellBlock&, double*) { throw std::runtime_error("a bad block"); }, plane),
          std::runtime_error);
      put_state(*b, grid_, in);
      for (int planes : {0, 1, 2}) {
        SCOPED_TRACE("planes per slab " + std::to_string(planes));
        std::vector<double> out(in.size(), -1.0);
        int next_z = 0, slabs = 0;
        b->read_state(
            [&](const hc::StateSlab& slab) {
              EXPECT_EQ(slab.block.offset[2], next_z);
              EXPECT_EQ(slab.block.n[0], grid_.n[0]);
              EXPECT_EQ(slab.block.n[1], grid_.n[1]);
              next_z += slab.block.n[2];
              ++slabs;
              hc::place_block(slab.block, slab.values, hc::block_of(grid_), out.data());
            },
            hc::Purpose::Output, planes == 0 ? hc::SlabPlan::kSlabBytes : planes * plane);
        EXPECT_EQ(next_z, grid_.n[2]);
        EXPECT_EQ(slabs, planes == 0 ? 1 : planes == 1 ? 3 : 2);
        EXPECT_EQ(out, in);

        // And back: write_state fills u0 from slabs (another state: the same values reversed).
        const std::vector<double> back(in.rbegin(), in.rend());
        next_z = 0;
        b->write_state(
            [&](const hc::CellBlock& block, double* values) {
              EXPECT_EQ(block.offset[2], next_z);
              next_z += block.n[2];
              const std::size_t cells = block.cells(), plane_cells = std::size_t(grid_.n[0]) * grid_.n[1];
              for (int v = 0; v < hc::kNumVars; ++v)
                for (std::size_t n = 0; n < cells; ++n)
                  values[v * cells + n] = back[v * grid_.ninterior + block.offset[2] * plane_cells + n];
            },
            planes == 0 ? hc::SlabPlan::kSlabBytes : planes * plane);
        EXPECT_EQ(next_z, grid_.n[2]);
        EXPECT_EQ(state_of(*b, grid_), back);
        put_state(*b, grid_, in);
      }
    }
}

// The host reference of a backend's ghost work, in double precision and SoA: the padded
// state, ghosts filled as kernels/boundary.hpp says and halo messages packed and unpacked
// as kernels/halo.hpp says, in the order the calls are made.
class HostReference {
 public:
  HostReference(const hc::Grid& g, const std::vector<double>& canonical)
      : g_(g), padded_(hc::SoA::storage_size(g.ncells)), u_{padded_.data(), g.ncells} {
    for (int k = 0; k < g.n[2]; ++k)
      for (int j = 0; j < g.n[1]; ++j)
        for (int i = 0; i < g.n[0]; ++i) {
          const std::size_t c = i + g.n[0] * (j + std::size_t(g.n[1]) * k);
          for (int v = 0; v < hc::kNumVars; ++v)
            u_(v, g.index(i + g.ng[0], j + g.ng[1], k + g.ng[2])) = canonical[v * g.ninterior + c];
        }
  }

  // The ghost fill of direction d over the whole padded extent of the other two.
  void fill(int d, const hc::BoundaryFaces& faces) {
    const hc::Boundary lo = faces.face[d][0], hi = faces.face[d][1];
    each_ghost(d, [&](int ghost, std::size_t base) {
      if (!hc::filled_by_boundary(ghost, g_.ng[d], lo, hi)) return;
      bool flip = false;
      const int source = hc::ghost_source(ghost, g_.n[d], g_.ng[d], lo, hi, flip);
      hc::copy_ghost(u_, base + g_.stride[d] * ghost, base + g_.stride[d] * source, d, flip);
    });
  }
  std::vector<double> pack(int d, int side) { return halo_loop<true>(d, side, {}); }
  void unpack(int d, int side, const std::vector<double>& message) { halo_loop<false>(d, side, message); }

 private:
  template <class F>
  void each_ghost(int d, F f) {
    int a, b;
    hc::other_directions(d, a, b);
    for (int ib = 0; ib < g_.np[b]; ++ib)
      for (int ia = 0; ia < g_.np[a]; ++ia)
        for (int layer = 0; layer < 2 * g_.ng[d]; ++layer)
          f(layer < g_.ng[d] ? layer : g_.n[d] + layer, g_.stride[a] * ia + g_.stride[b] * ib);
  }
  template <bool Pack>
  std::vector<double> halo_loop(int d, int side, std::vector<double> message) {
    message.resize(hc::halo_message_size(g_, d));
    int a, b;
    hc::other_directions(d, a, b);
    for (int v = 0; v < hc::kNumVars; ++v)
      for (int layer = 0; layer < g_.ng[d]; ++layer)
        for (int ib = 0; ib < g_.np[b]; ++ib)
          for (int ia = 0; ia < g_.np[a]; ++ia) {
            if (Pack)
              hc::pack_halo_value(g_, u_, d, side, v, layer, ia, ib, message.data());
            else
              hc::unpack_halo_value(g_, u_, d, side, v, layer, ia, ib, message.data());
          }
    return message;
  }

  hc::Grid g_;
  std::vector<double> padded_;
  hc::StateRef<double, hc::SoA> u_;
};

template <class Real>
std::vector<double> as_doubles(const void* data, std::size_t count) {
  const Real* values = static_cast<const Real*>(data);
  return std::vector<double>(values, values + count);
}

// The faces of every direction `kind`, those of direction `exchanged` exchanged.
hc::BoundaryFaces faces_with_exchange(hc::Boundary kind, int exchanged) {
  hc::BoundaryFaces faces = all_faces(kind);
  faces.face[exchanged][0] = faces.face[exchanged][1] = hc::Boundary::Exchanged;
  return faces;
}

// The backend's halo set-up for `faces`: staged (sync), every exchanged face.
hc::HaloSetup staged_halo(const hc::BoundaryFaces& faces) {
  hc::HaloSetup halo;
  halo.strategy = hc::HaloStrategy::Sync;
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) halo.exchanged[d][side] = faces.face[d][side] == hc::Boundary::Exchanged;
  return halo;
}

// A stage's calls do nothing until a step is planned (dt 0): plans one.
void plan_one_step(hc::Backend& b) {
  hc::StepControl control;
  control.t_stop = 1e9;
  control.step_limit = 1;
  b.reset_control(control);
  b.plan_step();
}

std::unique_ptr<hc::Backend> Contract::make_exchanging(const Case& c, const hc::BoundaryFaces& faces) {
  std::unique_ptr<hc::Backend> b = make(c, faces);
  b->configure_halo(staged_halo(faces));
  put_state(*b, grid_, tagged_state(grid_));
  plan_one_step(*b);
  return b;
}

// Packs direction d of u0 and returns the two messages as MPI would read them.
std::vector<double> sent_message(hc::Backend& b, const hc::Grid& g, int d, int side, hc::Precision precision) {
  b.pack_halo(d, hc::Slot::U0);
  b.halo_to_host(d);
  b.wait_halo_sent(d);
  const hc::HaloMessages m = b.halo_messages(d);
  const std::size_t count = hc::halo_message_size(g, d);
  EXPECT_TRUE(m.exchanged[side]);
  if (precision == hc::Precision::FP64) {
    EXPECT_EQ(m.bytes, count * sizeof(double));
    return as_doubles<double>(m.send[side], count);
  }
  EXPECT_EQ(m.bytes, count * sizeof(float));
  return as_doubles<float>(m.send[side], count);
}

// The ghost fill of the two directions that are not exchanged, read through the packed
// messages of the exchanged one (which carry the other directions' ghosts), for every
// boundary kind, exchanged direction, layout and precision; the low and high faces both.
TEST_P(Contract, BoundaryFillAndPackMatchTheHostReference) {
  for (const hc::Boundary kind : {hc::Boundary::Periodic, hc::Boundary::Outflow, hc::Boundary::Reflecting})
    for (int exchanged = 0; exchanged < 3; ++exchanged)
      for (const Case& c : kCases) {
        SCOPED_TRACE(name_of(c) + ", boundary " + std::to_string(int(kind)) + ", exchanged along " +
                     std::to_string(exchanged));
        const hc::BoundaryFaces faces = faces_with_exchange(kind, exchanged);
        std::unique_ptr<hc::Backend> b = make_exchanging(c, faces);
        HostReference reference(grid_, tagged_state(grid_));
        for (int d = 0; d < 3; ++d) {
          b->fill_boundary(d, hc::Slot::U0);
          reference.fill(d, faces);
        }
        for (int side = 0; side < 2; ++side)
          EXPECT_EQ(sent_message(*b, grid_, exchanged, side, c.precision), reference.pack(exchanged, side))
              << "face " << side;
      }
}

// bytes_allocated() is what the backend holds between steps, byte for byte the footprint
// (kernels/contract/footprint.hpp) that both the backend's own check and the run's memory
// plan (app/resources.cpp) count before any allocation: its arrays and scalars, and, once
// configured, the halo exchange's buffers, which configure_halo checks against the memory
// left before making them (they were counted nowhere: a device that could not hold them ended
// the run in one rank's exit 1). The plan's peak adds the slab buffers a file's read makes.
TEST_P(Contract, BytesAllocatedAreTheFootprint) {
  for (int exchanged = 0; exchanged < 3; ++exchanged)
    for (const Case& c : kCases) {
      SCOPED_TRACE(name_of(c) + ", exchanged along " + std::to_string(exchanged));
      const hc::BoundaryFaces faces = faces_with_exchange(hc::Boundary::Outflow, exchanged);
      std::unique_ptr<hc::Backend> b = make(c, faces);
      hc::Config config;
      config.backend = GetParam();
      config.layout = c.layout;
      config.precision = c.precision;
      config.n = {5, 4, 3};
      const hc::Footprint planned =
          hc::plan_memory(config, {1, 1, 1}, !hc::runs_on_gpu(config.backend), 1, true).solver;
      EXPECT_EQ(planned.halo_buffers, 0u);  // one rank, outflow faces: no exchange planned
      EXPECT_EQ(b->bytes_allocated(), static_cast<std::size_t>(planned.resident()));
      b->configure_halo(staged_halo(faces));
      const std::size_t real = c.precision == hc::Precision::FP64 ? 8 : 4;
      const std::size_t halo = 4 * hc::halo_message_size(grid_, exchanged) * real;
      EXPECT_EQ(b->bytes_allocated(), static_cast<std::size_t>(planned.resident()) + halo);
      std::array<bool, 3> along{};
      along[exchanged] = true;
      EXPECT_EQ(hc::halo_buffer_bytes(grid_, along, real), halo);
    }
}

// The plan's footprint of a run on several ranks: the largest rank's arrays, the halo buffers
// of each direction it exchanges (split among ranks, or periodic), the backend's scratch, and
// the slab buffers a file's read makes, in the backend's own numbers.
TEST_P(Contract, ThePlansFootprintIsTheLargestRanks) {
  hc::Config config;
  config.backend = GetParam();
  config.precision = hc::Precision::FP32;
  config.layout = hc::LayoutKind::AoSoA;
  config.kernels = hc::KernelStrategy::Split;
  config.n = {9, 6, 5};
  config.boundary[1][0] = config.boundary[1][1] = hc::Boundary::Periodic;
  const hc::Footprint f = hc::plan_memory(config, {2, 1, 1}, !hc::runs_on_gpu(config.backend), 2, true).solver;
  const int dims[3] = {2, 1, 1}, first[3] = {0, 0, 0};
  const hc::Grid largest = hc::grid_of(config, dims, first);
  ASSERT_EQ(largest.n[0], 5);
  const std::size_t cells = 9 * 10 * 9;                          // 5 x 6 x 5 cells with two ghost layers a side
  EXPECT_EQ(f.arrays, 6u * hc::AoSoA::storage_size(cells) * 4);  // u0, u1, unew, three flux arrays
  EXPECT_EQ(f.halo_buffers, hc::halo_buffer_bytes(largest, {true, true, false}, 4));  // x: ranks; y: periodic
  EXPECT_EQ(f.host_halo_buffers, f.halo_buffers);  // auto on 2 ranks is overlap: staged through host copies
  config.halo = hc::HaloStrategy::GpuAware;        // MPI reads the device buffers: no host copies
  const hc::Footprint aware = hc::plan_memory(config, {2, 1, 1}, !hc::runs_on_gpu(config.backend), 2, true).solver;
  EXPECT_EQ(aware.halo_buffers, f.halo_buffers);
  EXPECT_EQ(aware.host_halo_buffers, 0u);
  const hc::BackendScratch scratch = hc::backend_scratch(config.backend, 4);
  EXPECT_EQ(f.control, scratch.control_bytes);
  EXPECT_EQ(f.slab_buffers, static_cast<std::size_t>(scratch.slab_buffers) * 5 * 5 * 6 * 5 * 4);  // whole z: one slab
  EXPECT_EQ(f.peak(), f.arrays + f.control + f.halo_buffers + f.slab_buffers);
}

// Received messages land in the ghosts: x's messages are unpacked, then z's ghosts filled,
// and y's packed messages (which carry x's ghosts) are compared with the host reference.
TEST_P(Contract, UnpackedHaloLandsInTheGhosts) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(name_of(c));
    hc::BoundaryFaces faces = faces_with_exchange(hc::Boundary::Reflecting, 0);
    faces.face[1][0] = faces.face[1][1] = hc::Boundary::Exchanged;
    std::unique_ptr<hc::Backend> b = make_exchanging(c, faces);
    HostReference reference(grid_, tagged_state(grid_));
    // Received values unlike any in the state (and exact in fp32), one per message value.
    const hc::HaloMessages m = b->halo_messages(0);
    const std::size_t count = hc::halo_message_size(grid_, 0);
    for (int side = 0; side < 2; ++side) {
      std::vector<double> received(count);
      for (std::size_t i = 0; i < count; ++i) received[i] = -1 - double(i + side * count) / 256;
      for (std::size_t i = 0; i < count; ++i) {
        if (c.precision == hc::Precision::FP64)
          static_cast<double*>(m.receive[side])[i] = received[i];
        else
          static_cast<float*>(m.receive[side])[i] = static_cast<float>(received[i]);
      }
      reference.unpack(0, side, received);
    }
    b->halo_to_device(0);
    b->unpack_halo(0, hc::Slot::U0);
    b->fill_boundary(2, hc::Slot::U0);
    reference.fill(2, faces);
    for (int side = 0; side < 2; ++side)
      EXPECT_EQ(sent_message(*b, grid_, 1, side, c.precision), reference.pack(1, side)) << "face " << side;
  }
}

// A GPU backend counts the state's upload and download (one each, the state's bytes at
// least); a backend in host memory copies nothing between host and device.
TEST_P(Contract, TransfersAreCountedWhereTheStateCrosses) {
  const Case c{hc::LayoutKind::SoA, hc::Precision::FP64};
  std::unique_ptr<hc::Backend> b = make(c, all_faces(hc::Boundary::Periodic));
  const std::vector<double> state = tagged_state(grid_);
  put_state(*b, grid_, state);
  (void)state_of(*b, grid_);
  const hc::TransferLog& log = b->transfers();
  const hc::TransferCount up = log.get(hc::Direction::HostToDevice, hc::Purpose::Setup);
  const hc::TransferCount down = log.get(hc::Direction::DeviceToHost, hc::Purpose::Output);
  if (b->device_info().kind == "gpu") {
    EXPECT_GE(up.calls, 1);
    EXPECT_GE(up.bytes, state.size() * sizeof(double));
    EXPECT_GE(down.calls, 1);
    EXPECT_GE(down.bytes, state.size() * sizeof(double));
  } else {
    EXPECT_EQ(up.calls + down.calls, 0);
  }
}

std::string backend_param_name(const ::testing::TestParamInfo<hc::BackendKind>& info) {
  return hc::backend_name(info.param);
}

INSTANTIATE_TEST_SUITE_P(EachBackend, Contract, ::testing::Values(hc::BackendKind::Kokkos, hc::BackendKind::Hip),
                         backend_param_name);

}  // namespace

// Device code indexes a subdomain's cells in 32 bits (base/grid.hpp): a GPU backend takes
// 2^32 - 1 padded cells and refuses one more with one line naming the count.
TEST(Contract, GpuBackendsRefuseSubdomainsBeyond32BitCellIndices) {
  hc::Grid g;
  g.ncells = hc::kMaxDeviceCells;
  EXPECT_NO_THROW(hc::check_device_indexable(g));
  g.ncells = hc::kMaxDeviceCells + 1;
  try {
    hc::check_device_indexable(g);
    FAIL() << "2^32 cells were taken";
  } catch (const hc::ResourceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("this subdomain has 4294967296 cells"), std::string::npos) << what;
    EXPECT_NE(what.find("at most 4294967295"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}
