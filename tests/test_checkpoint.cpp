// Checkpoints (io/checkpoint.hpp, app/checkpoints.cpp): a restart continues bit for bit,
// in the same or another layout; a file that is truncated, corrupted, of another format
// version or of another run is refused with a CheckpointError (exit code 2), never used;
// only the newest `keep` are kept. (Other rank counts: tests/mpi/restart_ranks.sh; kills
// and signals: tests/mpi/kill_trials.sh.)
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "app/driver.hpp"
#include "app/problems.hpp"
#include "app/verify.hpp"
#include "io/checkpoint.hpp"
#include "io/deck.hpp"
#include "tests/test_support.hpp"

namespace hc = halocline;
namespace fs = std::filesystem;

namespace {

hc::Config kh(const fs::path& out) {
  hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml",
                               {"grid.nx=40", "grid.ny=36"});
  c.max_steps = 12;
  c.out_dir = out.string();
  c.output_final = false;
  return c;
}

TEST(Checkpoint, RestartIsBitwiseInEveryLayout) {
  hc::test::TempDir dir("ckpt_restart");
  hc::Config c = kh(dir.path() / "full");
  c.checkpoint.every_steps = 4;
  c.checkpoint.keep = 5;
  const hc::RunResult full = hc::run_quietly(c);
  ASSERT_EQ(full.checkpoints.size(), 3u);  // steps 4, 8, 12
  for (hc::LayoutKind layout : {hc::LayoutKind::AoS, hc::LayoutKind::SoA, hc::LayoutKind::AoSoA}) {
    hc::Config r = kh(dir.path() / "again");
    r.layout = layout;
    r.restart_path = hc::checkpoint_path((dir.path() / "full").string(), 8);
    const hc::RunResult again = hc::run_quietly(r);
    EXPECT_EQ(again.steps, 12);
    EXPECT_EQ(again.checksum, full.checksum) << hc::layout_name(layout);
  }
  const hc::CheckpointHeader h = hc::read_checkpoint_header(full.checkpoints[1]);
  EXPECT_EQ(h.step, 8);
  EXPECT_EQ(h.grid, (std::array<int, 3>{40, 36, 1}));
  EXPECT_EQ(h.precision, "fp64");
  EXPECT_NE(h.deck_text.find("kelvin_helmholtz"), std::string::npos);
}

TEST(Checkpoint, Fp32RestartIsBitwise) {
  hc::test::TempDir dir("ckpt_fp32");
  hc::Config c = kh(dir.path() / "full");
  c.precision = hc::Precision::FP32;
  c.checkpoint.every_steps = 5;
  const hc::RunResult full = hc::run_quietly(c);
  hc::Config r = kh(dir.path() / "again");
  r.precision = hc::Precision::FP32;
  r.restart_path = full.checkpoints.front();
  EXPECT_EQ(hc::run_quietly(r).checksum, full.checksum);
}

TEST(Checkpoint, KeepsTheNewest) {
  hc::test::TempDir dir("ckpt_keep");
  hc::Config c = kh(dir.path());
  c.checkpoint.every_steps = 2;
  c.checkpoint.keep = 2;
  hc::run_quietly(c);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path())) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"checkpoint_00000010.h5", "checkpoint_00000012.h5"}));
}

// Every refusal names the file and the reason, and is a CheckpointError (exit code 2).
void expect_refused(const hc::Config& c, const std::string& reason) {
  try {
    hc::run_quietly(c);
    ADD_FAILURE() << "restart from " << c.restart_path << " was not refused (" << reason << ")";
  } catch (const hc::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.restart_path), std::string::npos) << e.what();
  }
}

TEST(Checkpoint, RefusesWhatItCannotUse) {
  hc::test::TempDir dir("ckpt_refuse");
  fs::create_directories(dir.path());
  hc::Config c = kh(dir.path());
  c.checkpoint.every_steps = 6;
  const hc::RunResult full = hc::run_quietly(c);
  const std::string good = full.checkpoints.front();
  const auto size = fs::file_size(good);

  hc::Config r = kh(dir.path() / "r");
  r.restart_path = (dir.path() / "missing.h5").string();
  expect_refused(r, "does not exist");

  const fs::path truncated = dir.path() / "truncated.h5";
  fs::copy_file(good, truncated);
  fs::resize_file(truncated, size / 2);
  r.restart_path = truncated.string();
  expect_refused(r, "not a readable HDF5 file");

  // One flipped byte in the middle of the state: the checksum no longer matches.
  const fs::path corrupted = dir.path() / "corrupted.h5";
  fs::copy_file(good, corrupted);
  {
    std::fstream f(corrupted, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(size / 2));
    char byte = 0;
    f.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.write(&byte, 1);
  }
  r.restart_path = corrupted.string();
  expect_refused(r, "is corrupted");

  // Another format version.
  hc::CheckpointHeader h = hc::read_checkpoint_header(good);
  h.format = hc::kCheckpointFormat + 1;
  const fs::path future = dir.path() / "future.h5";
  const hc::Grid g = hc::grid_of(c);
  std::vector<double> state = hc::read_checkpoint_block(good, g);
  hc::write_checkpoint(future.string(), h, state);
  r.restart_path = future.string();
  expect_refused(r, "format version");

  // Another run: grid, gamma, precision.
  r.restart_path = good;
  hc::Config other = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml",
                                   {"grid.nx=40", "grid.ny=30"});
  other.restart_path = good;
  expect_refused(other, "is for a grid of 40 x 36 x 1 cells");
  hc::Config gamma = r;
  gamma.physics.gamma = 1.4;
  expect_refused(gamma, "has gamma");
  hc::Config fp32 = r;
  fp32.precision = hc::Precision::FP32;
  expect_refused(fp32, "fp64 run");
}

}  // namespace
