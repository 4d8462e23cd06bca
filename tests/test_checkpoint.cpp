// Checkpoints (io/checkpoint.hpp, app/checkpoints.cpp): a restart continues bit for bit,
// in the same or another layout; a file that is truncated, corrupted (its state or its
// header), of another format version, of impossible values or of another run is refused
// with a CheckpointError (exit code 2), never used; a restart into a directory holding
// later checkpoints is refused; only the newest `keep` are kept, and never the one the run
// restarted from. (Other rank counts: tests/mpi/restart_ranks.sh; kills and signals:
// tests/reliability/kill_trials.sh.)
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "app/checkpoints.hpp"
#include "app/driver.hpp"
#include "app/problems.hpp"
#include "app/provenance.hpp"
#include "app/report.hpp"
#include "app/verify.hpp"
#include "io/checkpoint.hpp"
#include "io/deck.hpp"
#include "io/h5util.hpp"
#include "tests/test_support.hpp"

namespace hc = halocline;
namespace fs = std::filesystem;

namespace {

hc::Config kh(const fs::path& out) {
  hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml", {"grid.nx=40", "grid.ny=36"});
  c.max_steps = 12;
  c.out_dir = out.string();
  c.output_final = false;
  return c;
}

// The same, `steps` steps long, with a checkpoint every `every` steps, the newest `keep` kept.
hc::Config kh_checkpointed(const fs::path& out, long steps, long every, int keep) {
  hc::Config c = kh(out);
  c.max_steps = steps;
  c.checkpoint.every_steps = every;
  c.checkpoint.keep = keep;
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
  hc::Config other = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml", {"grid.nx=40", "grid.ny=30"});
  other.restart_path = good;
  expect_refused(other, "is for a grid of 40 x 36 x 1 cells");
  hc::Config gamma = r;
  gamma.physics.gamma = 1.4;
  expect_refused(gamma, "has gamma");
  hc::Config fp32 = r;
  fp32.precision = hc::Precision::FP32;
  expect_refused(fp32, "fp64 run");
}

// Replaces root attribute `name` of the checkpoint `path` by `value` (a double, an
// int64, three ints or doubles, or a string), as a hand or a bad disk might.
void set_attribute(const fs::path& path, const char* name, hid_t type, hsize_t count, const void* value) {
  hc::h5::H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  ASSERT_GE(file.get(), 0) << path;
  ASSERT_GE(H5Adelete(file.get(), name), 0) << name;
  hc::h5::write_attribute(file.get(), name, type, count, value, path.string());
}
void set_string(const fs::path& path, const char* name, const std::string& value) {
  hc::h5::H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.size());
  set_attribute(path, name, type.get(), 0, value.data());
}
// The header as the file says it (read_checkpoint_header checks it, so this reads around).
void set_header_checksum(const fs::path& path, const hc::CheckpointHeader& h) {
  set_string(path, "header_checksum", hc::checkpoint_header_checksum(h));
}

std::string refusal(const fs::path& path) {
  try {
    hc::read_checkpoint_header(path.string());
    return "accepted";
  } catch (const hc::CheckpointError& e) {
    return e.what();
  }
}

// A good checkpoint of the kh deck at step 6, and a fresh copy of it on demand.
struct Saved {
  hc::test::TempDir dir{"ckpt_header"};
  std::string good;
  hc::CheckpointHeader header;
  Saved() {
    fs::create_directories(dir.path());
    hc::Config c = kh(dir.path() / "run");
    c.checkpoint.every_steps = 6;
    good = hc::run_quietly(c).checkpoints.front();
    header = hc::read_checkpoint_header(good);
  }
  fs::path copy(const std::string& name) const {
    const fs::path p = dir.path() / (name + ".h5");
    fs::copy_file(good, p, fs::copy_options::overwrite_existing);
    return p;
  }
};

TEST(Checkpoint, WritesFormatFiveWithTheRunsProblemDomainBoundariesSeriesAndNumerics) {
  const Saved s;
  const hc::CheckpointHeader& h = s.header;
  EXPECT_EQ(h.format, 5);
  const hc::Config deck = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml");
  EXPECT_EQ(h.cfl, deck.physics.cfl);
  EXPECT_EQ(h.limiter, hc::limiter_name(deck.physics.limiter));
  EXPECT_EQ(h.riemann, hc::riemann_name(deck.physics.riemann));
  EXPECT_EQ(h.series.size(), 16u);
  EXPECT_EQ(h.series.find_first_not_of("0123456789abcdef"), std::string::npos) << h.series;
  EXPECT_EQ(h.problem, "kelvin_helmholtz");
  EXPECT_EQ(h.lo, (std::array<double, 3>{0, 0, 0}));
  EXPECT_EQ(h.hi, (std::array<double, 3>{1, 1, 1}));
  for (const std::string& b : h.boundaries) EXPECT_EQ(b, "periodic");
  EXPECT_EQ(h.header_checksum, hc::checkpoint_header_checksum(h));
  EXPECT_EQ(h.header_checksum.size(), 16u);
}

// Every field a restart uses is covered: changing any one of them in the file, and not
// its checksum, makes it a corrupted file.
TEST(Checkpoint, HeaderIsCoveredByItsChecksum) {
  const Saved s;
  const std::string corrupted = "is corrupted: its header does not match its checksum";
  const std::int64_t step = 7;
  const double time = s.header.time * 2, nan = std::nan(""), gamma = 1.4, cfl = s.header.cfl / 2;
  const double lo[3] = {0, 0, -1}, hi[3] = {2, 1, 1};
  const int grid[3] = {40, 36, 2}, ranks[3] = {2, 1, 1};
  struct Change {
    const char* name;
    hid_t type;
    hsize_t count;
    const void* value;
  };
  for (const Change& c : {Change{"step", H5T_NATIVE_INT64, 0, &step}, Change{"time", H5T_NATIVE_DOUBLE, 0, &time},
                          Change{"time", H5T_NATIVE_DOUBLE, 0, &nan}, Change{"gamma", H5T_NATIVE_DOUBLE, 0, &gamma},
                          Change{"lo", H5T_NATIVE_DOUBLE, 3, lo}, Change{"hi", H5T_NATIVE_DOUBLE, 3, hi},
                          Change{"grid", H5T_NATIVE_INT, 3, grid}, Change{"ranks_grid", H5T_NATIVE_INT, 3, ranks},
                          Change{"cfl", H5T_NATIVE_DOUBLE, 0, &cfl}}) {
    SCOPED_TRACE(c.name);
    const fs::path p = s.copy(std::string("changed_") + c.name);
    set_attribute(p, c.name, c.type, c.count, c.value);
    EXPECT_NE(refusal(p).find(corrupted), std::string::npos) << refusal(p);
  }
  for (const auto& [name, value] : std::vector<std::pair<const char*, std::string>>{
           {"problem", "uniform"},
           {"boundaries", "periodic periodic outflow outflow periodic periodic"},
           {"precision", "fp32"},
           {"checksum", "0123456789abcdef"},
           {"deck", "[problem]"},
           {"halocline_version", "0.0"},
           {"layout", "other"},
           {"backend", "other"},
           {"limiter", "minmod"},
           {"riemann", "rusanov"},
           {"header_checksum", "0"}}) {
    SCOPED_TRACE(name);
    const fs::path p = s.copy(std::string("changed_") + name);
    set_string(p, name, value);
    EXPECT_NE(refusal(p).find(corrupted), std::string::npos) << refusal(p);
  }
}

// Values no run can continue from are refused even when the header's checksum agrees
// (the issue's: a NaN time never ended, -1 re-simulated, inf wrote `sim_time: null`, 2^62
// was taken as a step).
TEST(Checkpoint, RefusesImpossibleValuesEvenWithAMatchingChecksum) {
  const Saved s;
  auto with_time = [&](double t, const std::string& why) {
    hc::CheckpointHeader h = s.header;
    h.time = t;
    const fs::path p = s.copy("time");
    set_attribute(p, "time", H5T_NATIVE_DOUBLE, 0, &t);
    set_header_checksum(p, h);
    EXPECT_NE(refusal(p).find(why), std::string::npos) << refusal(p);
  };
  with_time(std::nan(""), "has time nan; the time must be finite and >= 0");
  with_time(std::numeric_limits<double>::infinity(), "has time inf; the time must be finite and >= 0");
  with_time(-1, "has time -1; the time must be finite and >= 0");
  for (const std::int64_t step : {std::int64_t{-1}, std::int64_t{1} << 62, std::int64_t{1} << 53}) {
    hc::CheckpointHeader h = s.header;
    h.step = static_cast<long>(step);
    const fs::path p = s.copy("step");
    set_attribute(p, "step", H5T_NATIVE_INT64, 0, &step);
    set_header_checksum(p, h);
    EXPECT_NE(refusal(p).find("has step " + std::to_string(step) + "; a step must be >= 0 and below 2^53"),
              std::string::npos)
        << refusal(p);
  }
  {
    hc::CheckpointHeader h = s.header;
    h.gamma = 1;
    const fs::path p = s.copy("gamma");
    set_attribute(p, "gamma", H5T_NATIVE_DOUBLE, 0, &h.gamma);
    set_header_checksum(p, h);
    EXPECT_NE(refusal(p).find("has gamma 1; gamma must be finite and > 1"), std::string::npos) << refusal(p);
  }
  {
    hc::CheckpointHeader h = s.header;
    h.grid = {40, 0, 1};
    const fs::path p = s.copy("grid");
    set_attribute(p, "grid", H5T_NATIVE_INT, 3, h.grid.data());
    set_header_checksum(p, h);
    EXPECT_NE(refusal(p).find("has a grid of 40 x 0 x 1 cells; every size must be >= 1"), std::string::npos)
        << refusal(p);
  }
  {
    hc::CheckpointHeader h = s.header;
    h.problem = "kelvin\nhelmholtz";  // quoted in messages: only plain words
    const fs::path p = s.copy("problem");
    set_string(p, "problem", h.problem);
    set_header_checksum(p, h);
    EXPECT_NE(refusal(p).find("has an invalid 'problem' attribute"), std::string::npos) << refusal(p);
  }
  for (const double cfl : {0.0, std::nan("")}) {
    hc::CheckpointHeader h = s.header;
    h.cfl = cfl;
    const fs::path p = s.copy("cfl");
    set_attribute(p, "cfl", H5T_NATIVE_DOUBLE, 0, &h.cfl);
    set_header_checksum(p, h);
    EXPECT_NE(refusal(p).find("has cfl " + std::string(cfl == 0 ? "0" : "nan") + "; it must be finite and > 0"),
              std::string::npos)
        << refusal(p);
  }
  for (const char* name : {"limiter", "riemann"}) {
    hc::CheckpointHeader h = s.header;
    (std::string(name) == "limiter" ? h.limiter : h.riemann) = "a b";
    const fs::path p = s.copy(std::string("word_") + name);
    set_string(p, name, "a b");
    set_header_checksum(p, h);
    EXPECT_NE(refusal(p).find(std::string("has an invalid '") + name + "' attribute"), std::string::npos) << refusal(p);
  }
  // And a run never starts from one: the NaN time, through the run itself.
  hc::CheckpointHeader h = s.header;
  h.time = std::nan("");
  const fs::path p = s.copy("nan_run");
  set_attribute(p, "time", H5T_NATIVE_DOUBLE, 0, &h.time);
  set_header_checksum(p, h);
  hc::Config r = kh(s.dir.path() / "nan_run");
  r.restart_path = p.string();
  expect_refused(r, "has time nan");
}

// Format 1 had no header checksum; format 2's state checksum was a sequential FNV-1a, where
// format 3 has kernels/checksum.hpp's sum: both are refused with their version named, and so is
// a version to come.
TEST(Checkpoint, OlderFormatsAreRefused) {
  const Saved s;
  for (const int old : {1, 2, 6}) {
    const fs::path p = s.copy("format" + std::to_string(old));
    set_attribute(p, "format_version", H5T_NATIVE_INT, 0, &old);
    EXPECT_NE(refusal(p).find("has format version " + std::to_string(old) + "; this Halocline reads versions 3 to 5"),
              std::string::npos)
        << refusal(p);
  }
}

// Format 3 had no series and format 4 no numerics: both are still read, without them, and
// their headers' checksums are the ones they made (without them). A restart from either names
// no change of numerics: it cannot tell.
TEST(Checkpoint, FormatsThreeAndFourAreReadWithoutWhatCameAfter) {
  const Saved s;
  for (const int format : {3, 4}) {
    SCOPED_TRACE(format);
    const fs::path p = s.copy("format" + std::to_string(format));
    hc::CheckpointHeader h = s.header;
    h.format = format;
    if (format < 4) h.series.clear();
    h.cfl = 0, h.limiter.clear(), h.riemann.clear();
    set_attribute(p, "format_version", H5T_NATIVE_INT, 0, &format);
    {
      hc::h5::H5Handle file(H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
      for (const char* name : {"cfl", "limiter", "riemann"}) ASSERT_GE(H5Adelete(file.get(), name), 0);
      if (format < 4) ASSERT_GE(H5Adelete(file.get(), "series"), 0);
    }
    set_header_checksum(p, h);
    EXPECT_EQ(refusal(p), "accepted");
    const hc::CheckpointHeader read = hc::read_checkpoint_header(p.string());
    EXPECT_EQ(read.series, format < 4 ? "" : s.header.series);
    EXPECT_EQ(read.limiter, "");
    hc::Config other = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/kh.toml");
    other.physics.cfl /= 2;
    EXPECT_FALSE(hc::restart_changes(read, other).has_value());
    EXPECT_EQ(hc::restart_changes(s.header, other).value().size(), 1u);
  }
  // The series is covered by format 4's checksum.
  const fs::path q = s.copy("series");
  set_string(q, "series", "0123456789abcdef");
  EXPECT_NE(refusal(q).find("is corrupted: its header does not match its checksum"), std::string::npos) << refusal(q);
}

// A format 4 file written by the build before format 5 (tests/data/checkpoints/README.md): its
// header checksum, made by that build, still verifies, and a run restarts from it; the
// numerics it changes are unknown (the report's restarted_from.changed is null).
TEST(Checkpoint, AFormatFourFileStillRestarts) {
  const std::string old = std::string(HALOCLINE_SOURCE_DIR) + "/tests/data/checkpoints/format4_sod8_step2.h5";
  const hc::CheckpointHeader h = hc::read_checkpoint_header(old);
  EXPECT_EQ(h.format, 4);
  EXPECT_EQ(h.step, 2);
  EXPECT_EQ(h.header_checksum, hc::checkpoint_header_checksum(h));
  hc::test::TempDir dir("ckpt_format4");
  hc::Config c = hc::load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs/sod.toml", {"grid.nx=8"});
  c.out_dir = dir.path().string();
  c.restart_path = old;
  c.max_steps = 4;
  c.physics.cfl = 0.3;
  const hc::RunResult r = hc::run_quietly(c);
  EXPECT_EQ(r.steps, 4);
  EXPECT_FALSE(r.restart_changes.has_value());
}

// A fresh run makes a new series; a restart carries its checkpoint's on, into its own
// checkpoints.
TEST(Checkpoint, ARestartCarriesItsSeriesOn) {
  hc::test::TempDir dir("ckpt_series");
  hc::Config c = kh_checkpointed(dir.path() / "a", 8, 4, 5);
  const std::string first = hc::read_checkpoint_header(hc::run_quietly(c).checkpoints.front()).series;
  hc::Config other = kh(dir.path() / "b");
  other.max_steps = 4;
  other.checkpoint.every_steps = 4;
  EXPECT_NE(hc::read_checkpoint_header(hc::run_quietly(other).checkpoints.front()).series, first);
  hc::Config r = c;
  r.out_dir = (dir.path() / "c").string();
  r.max_steps = 12;
  r.restart_path = hc::checkpoint_path((dir.path() / "a").string(), 8);
  EXPECT_EQ(hc::read_checkpoint_header(hc::run_quietly(r).checkpoints.back()).series, first);
}

// A checkpoint says which run wrote it: the run's provenance (the command's, with its
// device) as the group "provenance", outside the header. Changing it leaves the header's
// checksum valid, so a restart reads the file as before.
TEST(Checkpoint, CarriesTheRunsProvenanceOutsideTheHeader) {
  hc::test::TempDir dir("ckpt_provenance");
  hc::Config c = kh(dir.path() / "run");
  c.checkpoint.every_steps = 6;
  hc::RunOptions options;
  options.write_output = false;
  options.provenance = hc::make_provenance({"halocline", "run", "inputs/kh.toml", "--set", "grid.nx=40"});
  const hc::RunResult r = hc::run_simulation(c, options);
  ASSERT_FALSE(r.checkpoints.empty());
  const std::string& path = r.checkpoints.front();
  EXPECT_EQ(hc::test::read_provenance_group(path), hc::provenance_json(r.provenance));
  EXPECT_EQ(hc::test::read_provenance_group(path).at("command_line"), "halocline run inputs/kh.toml --set grid.nx=40");
  {
    hc::h5::H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    hc::h5::H5Handle group(H5Gopen2(file.get(), "provenance", H5P_DEFAULT), H5Gclose);
    ASSERT_GE(H5Adelete(group.get(), "host"), 0);
    hc::h5::write_text_attribute(group.get(), "host", "another host", path);
  }
  EXPECT_EQ(hc::test::read_provenance_group(path).at("host"), "another host");
  EXPECT_EQ(refusal(path), "accepted");
}

// A deck longer than the 64 KiB an attribute may take in HDF5's earliest format is kept
// whole and read back (it failed the write before: "object header message is too large").
TEST(Checkpoint, KeepsADeckLongerThan64KiB) {
  hc::test::TempDir dir("ckpt_long_deck");
  fs::create_directories(dir.path());
  hc::CheckpointHeader h;
  h.halocline_version = HALOCLINE_VERSION;
  h.problem = "uniform";
  h.boundaries = {"outflow", "outflow", "outflow", "outflow", "outflow", "outflow"};
  h.grid = {2, 2, 2};
  h.gamma = 1.4;
  h.precision = "fp64";
  h.layout = "soa";
  h.backend = "kokkos";
  h.cfl = 0.4, h.limiter = "mc", h.riemann = "hllc";
  h.checksum = "0000000000000000";
  for (int line = 0; h.deck_text.size() <= 200000; ++line) h.deck_text += "# comment " + std::to_string(line) + "\n";
  const std::string path = hc::checkpoint_path(dir.path().string(), 0);
  hc::write_checkpoint(path, h, std::vector<double>(hc::kNumVars * 8, 1.0));
  EXPECT_EQ(hc::read_checkpoint_header(path).deck_text, h.deck_text);
}

// What a restart may not change is named, field by field; what it may change runs.
TEST(Checkpoint, RestartMustMatchTheDeck) {
  const Saved s;
  hc::Config r = kh(s.dir.path() / "again");
  r.restart_path = s.good;

  hc::Config uniform = r;
  uniform.problem = hc::ProblemKind::Uniform;
  expect_refused(uniform, "is for problem 'kelvin_helmholtz'; the deck's problem.type is 'uniform'");
  hc::Config wider = r;
  wider.hi[0] = 2;
  expect_refused(wider, "has domain x in [0, 1]; the deck has [0, 2]");
  hc::Config shifted = r;
  shifted.lo[1] = 0.1;
  expect_refused(shifted, "has domain y in [0, 1]; the deck has [0.1, 1]");
  hc::Config walls = r;
  walls.boundary[1] = {hc::Boundary::Reflecting, hc::Boundary::Reflecting};
  expect_refused(walls, "has boundary.y_lo = periodic; the deck has reflecting");
  hc::Config ended = r;
  ended.t_end = s.header.time;
  expect_refused(ended, "is at t = ");
  expect_refused(ended, ", at or past the deck's time.t_end = ");
  expect_refused(ended, ": nothing to run");
  hc::Config stepped = r;  // --steps counts from the run's start: a limit at the checkpoint runs no step
  stepped.max_steps = s.header.step;
  expect_refused(stepped, "is at step " + std::to_string(s.header.step) + ", at or past the step limit");

  // Documented as free to change (docs/reliability.md): the run goes on.
  hc::Config changed = r;
  changed.physics.cfl = 0.3;
  changed.physics.limiter = hc::Limiter::Minmod;
  changed.physics.riemann = hc::RiemannSolver::Rusanov;
  changed.t_end = 2;
  changed.max_steps = 10;
  changed.checkpoint.every_steps = 2;
  changed.output_interval = 0.5;
  EXPECT_EQ(hc::run_quietly(changed).steps, 10);
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".h5") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Restarting into the directory a run writes its checkpoints to: refused while later
// checkpoints are there (naming the newest); once they are gone, it runs, and its pruning
// keeps the checkpoint it started from.
TEST(Checkpoint, RestartIntoTheSameDirectory) {
  hc::test::TempDir dir("ckpt_same_dir");
  hc::Config c = kh_checkpointed(dir.path(), 16, 4, 5);
  const hc::RunResult full = hc::run_quietly(c);
  fs::remove(hc::checkpoint_path(dir.path().string(), 16));  // a run that ended at 12
  ASSERT_EQ(names_in(dir.path()),
            (std::vector<std::string>{"checkpoint_00000004.h5", "checkpoint_00000008.h5", "checkpoint_00000012.h5"}));

  // From step 8 into the same directory (spelled another way): 12 is there, a checkpoint
  // of the run that went on from 8.
  hc::Config r = c;
  r.checkpoint.keep = 1;
  r.restart_path = (dir.path() / "." / "checkpoint_00000008.h5").string();
  const std::string newest = hc::checkpoint_path(dir.path().string(), 12);
  expect_refused(r, "already holds later ones (the newest: '" + newest + "')");
  expect_refused(r, "use another --out, or remove the checkpoints after step 8");
  EXPECT_THROW(hc::check_restart(r), hc::CheckpointError);  // what the command line calls first
  EXPECT_TRUE(fs::exists(newest));

  // Without it the restart runs on; keep = 1 keeps the newest (16) and the one it started
  // from (8), and prunes 4 and 12.
  fs::remove(newest);
  const hc::RunResult again = hc::run_quietly(r);
  EXPECT_EQ(again.checksum, full.checksum);
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"checkpoint_00000008.h5", "checkpoint_00000016.h5"}));
  EXPECT_EQ(hc::read_checkpoint_header(hc::checkpoint_path(dir.path().string(), 8)).step, 8);
}

// A restart's report counts the steps it took: its loop rate and transfers per step are of
// those, not of every step since the first run began; it names its checkpoint.
TEST(Checkpoint, ARestartCountsItsOwnSteps) {
  hc::test::TempDir dir("ckpt_own_steps");
  hc::Config c = kh(dir.path());
  c.max_steps = 8;
  c.checkpoint.every_steps = 8;
  (void)hc::run_quietly(c);
  hc::Config r = c;
  r.max_steps = 12;
  r.restart_path = hc::checkpoint_path(dir.path().string(), 8);
  const hc::RunResult on = hc::run_quietly(r);
  EXPECT_EQ(on.steps, 12);
  EXPECT_EQ(on.first_step, 8);
  EXPECT_DOUBLE_EQ(on.loop_cell_updates_per_s, static_cast<double>(on.grid.ninterior) * 4 / on.loop_s);
  const nlohmann::json j = hc::make_report(r, on);
  EXPECT_EQ(j.at("steps").get<long>(), 12);
  EXPECT_EQ(j.at("steps_this_run").get<long>(), 4);
  EXPECT_EQ(j.at("restarted_from").at("step").get<long>(), 8);
  EXPECT_EQ(j.at("restarted_from").at("checkpoint").get<std::string>(), r.restart_path);
  EXPECT_GE(j.at("steps_submitted").get<long>(), 4);
  EXPECT_LE(j.at("steps_submitted").get<long>(), 5);
  EXPECT_TRUE(hc::make_report(c, hc::run_quietly(c)).at("restarted_from").is_null());
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A restart into its own directory writes over none of the snapshots of the run it continues,
// whose final one lies at the restart's time: with no output interval that is snapshot 0,
// and with one it lies between two output times, under the next output time's number.
TEST(Checkpoint, ARestartWritesOverNoSnapshotOfTheRunItContinues) {
  for (const double interval_of_end : {0.0, 0.6}) {
    SCOPED_TRACE(interval_of_end);
    hc::test::TempDir dir("ckpt_snapshots");
    hc::Config c = kh(dir.path());
    c.max_steps = 6;
    c.checkpoint.every_steps = 6;
    c.output_final = true;
    c.output_interval = interval_of_end * hc::run_quietly(c).sim_time;
    const hc::RunResult first = hc::run_simulation(c, hc::RunOptions());
    const int last = interval_of_end > 0 ? 2 : 0;  // 0.6 T (1), then the end, T (2)
    ASSERT_EQ(first.snapshots.size(), interval_of_end > 0 ? 3u : 1u);
    const fs::path final_snapshot = dir.path() / ("snapshot_000" + std::to_string(last) + ".h5");
    const std::string before = bytes_of(final_snapshot);
    ASSERT_FALSE(before.empty());

    hc::Config r = c;
    r.max_steps = 10;
    r.restart_path = hc::checkpoint_path(dir.path().string(), 6);
    const hc::RunResult on = hc::run_simulation(r, hc::RunOptions());
    EXPECT_EQ(bytes_of(final_snapshot), before);
    const std::string next = "snapshot_000" + std::to_string(last + 1) + ".h5";
    EXPECT_TRUE(fs::exists(dir.path() / next)) << next;
    const std::string series = bytes_of(dir.path() / "snapshot.xmf");
    for (int k = 0; k <= last + 1; ++k)
      EXPECT_NE(series.find("snapshot_000" + std::to_string(k) + ".h5"), std::string::npos) << k << series;
  }
}

// prune_checkpoints by itself: by step (more than 8 digits sort after 8), sparing one file.
TEST(Checkpoint, PruneKeepsTheNewestAndTheSpare) {
  hc::test::TempDir dir("ckpt_prune");
  fs::create_directories(dir.path());
  for (const char* name : {"checkpoint_00000002.h5", "checkpoint_00000010.h5", "checkpoint_99999999.h5",
                           "checkpoint_100000000.h5", "checkpoint_abc.h5", "notes.h5"})
    std::ofstream(dir.path() / name) << "x";
  hc::prune_checkpoints(dir.path().string(), 2, 100000000, (dir.path() / "checkpoint_00000002.h5").string());
  EXPECT_EQ(names_in(dir.path()),
            (std::vector<std::string>{"checkpoint_00000002.h5", "checkpoint_100000000.h5", "checkpoint_99999999.h5",
                                      "checkpoint_abc.h5", "notes.h5"}));
}

// A file under a checkpoint's name that cannot be read as one belongs to no series: pruning for
// the series of the checkpoints made before series were ("", a restart from one goes on it)
// counted and removed it.
TEST(Checkpoint, PruningNeverTakesAFileItCannotRead) {
  hc::test::TempDir dir("ckpt_unreadable");
  fs::create_directories(dir.path());
  for (const char* name : {"checkpoint_00000002.h5", "checkpoint_00000003.h5"}) std::ofstream(dir.path() / name) << "x";
  EXPECT_EQ(hc::checkpoint_series((dir.path() / "checkpoint_00000002.h5").string()), std::nullopt);
  const std::string before_series;
  hc::prune_checkpoints(dir.path().string(), 1, 10, "", &before_series);
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"checkpoint_00000002.h5", "checkpoint_00000003.h5"}));
}

// Two runs into one directory (the decks' default `out`): the second prunes only its own series'
// checkpoints, never the first's (until 2026-12-06 a Kelvin-Helmholtz run's `keep` removed a
// Sedov run's checkpoint 5); the first's are named before the second starts (main.cpp's note).
// A restart goes on the series it restarts: its own are those, the rest another run's.
TEST(Checkpoint, ARunPrunesOnlyItsOwnSeries) {
  hc::test::TempDir dir("ckpt_two_runs");
  hc::Config first = kh_checkpointed(dir.path(), 8, 4, 5);
  hc::run_quietly(first);
  const std::string at4 = hc::checkpoint_path(dir.path().string(), 4),
                    at8 = hc::checkpoint_path(dir.path().string(), 8);

  hc::Config second = kh_checkpointed(dir.path(), 9, 3, 1);
  second.physics.cfl = 0.3;  // another run, not a restart
  EXPECT_EQ(hc::other_runs_checkpoints(second), (std::vector<std::string>{at4, at8}));
  const hc::RunResult again = hc::run_quietly(second);
  EXPECT_EQ(again.checkpoints.size(), 3u);
  EXPECT_EQ(names_in(dir.path()),
            (std::vector<std::string>{"checkpoint_00000004.h5", "checkpoint_00000008.h5", "checkpoint_00000009.h5"}));
  ASSERT_TRUE(hc::checkpoint_series(at4).has_value());
  EXPECT_EQ(hc::checkpoint_series(at4), hc::checkpoint_series(at8));
  EXPECT_NE(hc::checkpoint_series(at4), hc::checkpoint_series(hc::checkpoint_path(dir.path().string(), 9)));

  hc::Config restart = kh(dir.path());
  restart.restart_path = at4;
  EXPECT_EQ(hc::other_runs_checkpoints(restart), std::vector<std::string>{hc::checkpoint_path(dir.path().string(), 9)});
}

// A run into a directory that holds an earlier run's later checkpoints (50 and 100 of a run of
// 100 steps) keeps its own: a fault or a signal at step 16 saves step 16, and the message
// names it. Pruning counted the later ones as the newest and removed the run's own at once.
TEST(Checkpoint, AnEarlierRunsLaterCheckpointsDoNotPruneThisRunsOwn) {
  hc::test::TempDir dir("ckpt_earlier_run");
  hc::Config c = kh_checkpointed(dir.path(), 8, 4, 5);
  const hc::RunResult full = hc::run_quietly(c);
  fs::rename(hc::checkpoint_path(dir.path().string(), 4), hc::checkpoint_path(dir.path().string(), 50));
  fs::rename(hc::checkpoint_path(dir.path().string(), 8), hc::checkpoint_path(dir.path().string(), 100));

  c.max_steps = 6;
  c.checkpoint.every_steps = 2;
  c.checkpoint.keep = 2;
  const hc::RunResult again = hc::run_quietly(c);
  EXPECT_EQ(again.checkpoints.size(), 3u);
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"checkpoint_00000004.h5", "checkpoint_00000006.h5",
                                                            "checkpoint_00000050.h5", "checkpoint_00000100.h5"}));
  EXPECT_EQ(hc::read_checkpoint_header(hc::checkpoint_path(dir.path().string(), 6)).step, 6);
  EXPECT_NE(again.checksum, full.checksum);  // 6 steps, not 8
}

}  // namespace
