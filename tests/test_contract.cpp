// The backend contract (kernels/contract/backend.hpp), tested by driving a backend's calls
// directly, without the driver: written once, instantiated for every backend built in (as
// Cabana's test harness does). A backend this machine cannot run (hip without a GPU) is
// skipped, saying why.
//   - the state goes in and comes back unchanged, in every layout and precision;
//   - a packed halo message holds, value for value, what the host reference of
//     kernels/halo.hpp packs from the same state (ghosts along the other directions filled
//     by the backend's boundary fill, checked against kernels/boundary.hpp);
//   - the copies between host and device are counted where the state crosses them.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "app/problems.hpp"
#include "app/select.hpp"
#include "io/config.hpp"
#include "kernels/boundary.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/grid.hpp"
#include "kernels/halo.hpp"
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
  std::unique_ptr<hc::Backend> make(const Case& c, const hc::BoundaryFaces& faces) {
    hc::Config config;
    config.backend = GetParam();
    config.layout = c.layout;
    config.precision = c.precision;
    config.n = {5, 4, 3};
    grid_ = hc::grid_of(config);
    return hc::make_backend(config, grid_, faces);
  }

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
    b->set_state(in);
    std::vector<double> out;
    b->get_state(out, hc::Purpose::Output);
    EXPECT_EQ(out, in);
  }
}

// The host reference of the message of face `side` of x: the state's padded values, the
// ghosts along y and z filled as kernels/boundary.hpp says for outflow faces.
std::vector<double> reference_message(const hc::Grid& g, const std::vector<double>& canonical, int side) {
  std::vector<double> padded(hc::SoA::storage_size(g.ncells));
  const hc::StateRef<double, hc::SoA> u{padded.data(), g.ncells};
  for (int k = 0; k < g.np[2]; ++k)
    for (int j = 0; j < g.np[1]; ++j)
      for (int i = 0; i < g.np[0]; ++i) {
        int src[3] = {i, j, k};
        bool flip = false;
        for (int d = 1; d < 3; ++d)  // y, z ghosts from the boundary condition; x stays interior
          if (src[d] < g.ng[d] || src[d] >= g.ng[d] + g.n[d])
            src[d] = hc::ghost_source(src[d], g.n[d], g.ng[d], hc::Boundary::Outflow, hc::Boundary::Outflow, flip);
        if (src[0] < g.ng[0] || src[0] >= g.ng[0] + g.n[0]) continue;  // x ghosts are not sent
        const std::size_t c =
            (src[0] - g.ng[0]) + g.n[0] * ((src[1] - g.ng[1]) + std::size_t(g.n[1]) * (src[2] - g.ng[2]));
        for (int v = 0; v < hc::kNumVars; ++v) u(v, g.index(i, j, k)) = canonical[v * g.ninterior + c];
      }
  std::vector<double> message(hc::halo_message_size(g, 0));
  int a, b;
  hc::other_directions(0, a, b);
  for (int v = 0; v < hc::kNumVars; ++v)
    for (int layer = 0; layer < g.ng[0]; ++layer)
      for (int ib = 0; ib < g.np[b]; ++ib)
        for (int ia = 0; ia < g.np[a]; ++ia) hc::pack_halo_value(g, u, 0, side, v, layer, ia, ib, message.data());
  return message;
}

template <class Real>
std::vector<double> as_doubles(const void* data, std::size_t count) {
  const Real* values = static_cast<const Real*>(data);
  return std::vector<double>(values, values + count);
}

TEST_P(Contract, PackedHaloMessagesMatchTheHostReference) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(name_of(c));
    hc::BoundaryFaces faces = all_faces(hc::Boundary::Outflow);
    faces.face[0][0] = faces.face[0][1] = hc::Boundary::Exchanged;
    std::unique_ptr<hc::Backend> b = make(c, faces);
    hc::HaloSetup halo;
    halo.strategy = hc::HaloStrategy::Sync;
    halo.exchanged[0][0] = halo.exchanged[0][1] = true;
    b->configure_halo(halo);
    const std::vector<double> state = tagged_state(grid_);
    b->set_state(state);
    // A stage's calls do nothing until a step is planned (dt 0): plan one.
    hc::StepControl control;
    control.t_stop = 1e9;
    control.step_limit = 1;
    b->reset_control(control);
    b->plan_step();
    b->fill_boundary(1, hc::Slot::U0);
    b->fill_boundary(2, hc::Slot::U0);
    b->pack_halo(0, hc::Slot::U0);
    b->halo_to_host(0);
    b->wait_halo_sent(0);
    const hc::HaloMessages m = b->halo_messages(0);
    const std::size_t count = hc::halo_message_size(grid_, 0);
    const std::size_t real = c.precision == hc::Precision::FP64 ? sizeof(double) : sizeof(float);
    ASSERT_EQ(m.bytes, count * real);
    for (int side = 0; side < 2; ++side) {
      ASSERT_TRUE(m.exchanged[side]);
      const std::vector<double> got =
          real == sizeof(double) ? as_doubles<double>(m.send[side], count) : as_doubles<float>(m.send[side], count);
      EXPECT_EQ(got, reference_message(grid_, state, side)) << "face " << side;
    }
  }
}

// A GPU backend counts the state's upload and download (one each, the state's bytes at
// least); a backend in host memory copies nothing between host and device.
TEST_P(Contract, TransfersAreCountedWhereTheStateCrosses) {
  const Case c{hc::LayoutKind::SoA, hc::Precision::FP64};
  std::unique_ptr<hc::Backend> b = make(c, all_faces(hc::Boundary::Periodic));
  const std::vector<double> state = tagged_state(grid_);
  b->set_state(state);
  std::vector<double> out;
  b->get_state(out, hc::Purpose::Output);
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
