// Tests of the deck reader (io/deck.cpp): the shipped decks parse into the intended
// Config, --set overrides work, and every class of bad input fails with a one-line
// DeckError that names the key (and the deck line, where there is one).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "io/deck.hpp"

#ifndef HALOCLINE_SOURCE_DIR
#error "compile with -DHALOCLINE_SOURCE_DIR=\"<repo root>\""
#endif

namespace halocline {
namespace {

std::string input(const std::string& name) { return std::string(HALOCLINE_SOURCE_DIR) + "/inputs/" + name; }

// A small valid deck; each bad-input test breaks one thing in it.
const std::string kBase = R"(# line 1
[problem]
type = "riemann"

[grid]
nx = 64

[time]
t_end = 0.2
)";

// The message of the DeckError thrown by parsing `text` (fails the test if none is thrown).
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_deck(text, "t.toml", overrides);
  } catch (const DeckError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
    return msg;
  }
  ADD_FAILURE() << "no DeckError for:\n" << text;
  return "";
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)

// ---- The shipped decks --------------------------------------------------------------------

TEST(Deck, SodDeck) {
  const Config c = load_deck(input("sod.toml"));
  EXPECT_EQ(c.problem, ProblemKind::Riemann);
  EXPECT_EQ(c.riemann.preset, "sod");
  EXPECT_EQ(c.riemann.direction, 0);
  EXPECT_DOUBLE_EQ(c.riemann.left.rho, 1.0);
  EXPECT_DOUBLE_EQ(c.riemann.right.rho, 0.125);
  EXPECT_DOUBLE_EQ(c.riemann.right.p, 0.1);
  EXPECT_DOUBLE_EQ(c.riemann.x0, 0.5);
  EXPECT_EQ(c.n, (std::array<int, 3>{128, 1, 1}));
  EXPECT_DOUBLE_EQ(c.t_end, 0.2);
  EXPECT_DOUBLE_EQ(c.physics.gamma, 1.4);
  EXPECT_DOUBLE_EQ(c.physics.cfl, 0.4);
  EXPECT_EQ(c.physics.limiter, Limiter::MC);
  EXPECT_EQ(c.physics.riemann, RiemannSolver::HLLC);
  for (const auto& dir : c.boundary)
    for (Boundary b : dir) EXPECT_EQ(b, Boundary::Outflow);
  EXPECT_TRUE(c.output_final);
  EXPECT_DOUBLE_EQ(c.output_interval, 0.0);
  EXPECT_EQ(c.deck_path, input("sod.toml"));
  EXPECT_NE(c.deck_text.find("[riemann]"), std::string::npos);
}

TEST(Deck, VortexDeck) {
  const Config c = load_deck(input("vortex.toml"));
  EXPECT_EQ(c.problem, ProblemKind::IsentropicVortex);
  EXPECT_EQ(c.n, (std::array<int, 3>{64, 64, 1}));
  EXPECT_DOUBLE_EQ(c.lo[0], -5.0);
  EXPECT_DOUBLE_EQ(c.hi[1], 5.0);
  EXPECT_DOUBLE_EQ(c.vortex.strength, 5.0);
  EXPECT_DOUBLE_EQ(c.vortex.u, 1.0);
  EXPECT_DOUBLE_EQ(c.vortex.v, 1.0);
  EXPECT_DOUBLE_EQ(c.t_end, 2.0);
  EXPECT_EQ(c.boundary[0][0], Boundary::Periodic);
  EXPECT_EQ(c.boundary[1][1], Boundary::Periodic);
}

TEST(Deck, SedovDeck) {
  const Config c = load_deck(input("sedov.toml"));
  EXPECT_EQ(c.problem, ProblemKind::Sedov);
  EXPECT_EQ(c.n, (std::array<int, 3>{64, 64, 64}));
  EXPECT_DOUBLE_EQ(c.lo[2], -0.5);
  EXPECT_DOUBLE_EQ(c.hi[2], 0.5);
  EXPECT_DOUBLE_EQ(c.sedov.energy, 1.0);
  EXPECT_DOUBLE_EQ(c.sedov.radius_cells, 2.0);
  EXPECT_DOUBLE_EQ(c.t_end, 0.05);
}

TEST(Deck, KelvinHelmholtzDeck) {
  const Config c = load_deck(input("kh.toml"));
  EXPECT_EQ(c.problem, ProblemKind::KelvinHelmholtz);
  EXPECT_EQ(c.n, (std::array<int, 3>{128, 128, 1}));
  EXPECT_DOUBLE_EQ(c.physics.gamma, 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(c.kh.rho_inner, 2.0);
  EXPECT_DOUBLE_EQ(c.t_end, 2.5);  // the rolls stand by then (inputs/kh.toml says why)
}

TEST(Deck, BenchDeck) {
  const Config c = load_deck(input("bench.toml"));
  EXPECT_EQ(c.problem, ProblemKind::Uniform);
  EXPECT_EQ(c.n, (std::array<int, 3>{128, 128, 128}));
  EXPECT_EQ(c.max_steps, 20);
  EXPECT_FALSE(c.output_final);
  EXPECT_DOUBLE_EQ(c.uniform.perturbation, 1e-3);
  EXPECT_EQ(c.layout, LayoutKind::SoA);
  EXPECT_EQ(c.precision, Precision::FP64);
  EXPECT_EQ(c.boundary[2][1], Boundary::Periodic);
}

// ---- Defaults, presets, overrides ----------------------------------------------------------

TEST(Deck, DefaultsAndPresets) {
  const Config c = parse_deck(kBase + "[riemann]\npreset = \"toro5\"\n[riemann.right]\np = 50\n", "t.toml");
  EXPECT_EQ(c.layout, LayoutKind::SoA);
  EXPECT_EQ(c.out_dir, "out");
  EXPECT_EQ(c.max_steps, 0);
  EXPECT_DOUBLE_EQ(c.riemann.left.rho, 5.99924);
  EXPECT_DOUBLE_EQ(c.riemann.left.u, 19.5975);
  EXPECT_DOUBLE_EQ(c.riemann.right.u, -6.19633);
  EXPECT_DOUBLE_EQ(c.riemann.right.p, 50.0);  // explicit key over the preset
  EXPECT_DOUBLE_EQ(c.riemann.x0, 0.8);
  EXPECT_DOUBLE_EQ(c.physics.gamma, 1.4);  // presets leave gamma alone
  EXPECT_EQ(c.deck_path, "t.toml");
}

TEST(Deck, GridNAndExplicitSizes) {
  const std::string deck = "[problem]\ntype = \"uniform\"\n[grid]\nn = 16\nnz = 4\n[time]\nt_end = 1\n";
  const Config c = parse_deck(deck, "t.toml");
  EXPECT_EQ(c.n, (std::array<int, 3>{16, 16, 4}));
}

TEST(Deck, Overrides) {
  const Config c = load_deck(
      input("sod.toml"), {"grid.nx=256", "run.layout=aos", "physics.cfl=0.8", "physics.gamma=2", "output.dir=\"res\"",
                          "boundary.all=reflecting", "time.max_steps=7", "riemann.left.rho=3"});
  EXPECT_EQ(c.n[0], 256);
  EXPECT_EQ(c.layout, LayoutKind::AoS);    // bare word
  EXPECT_DOUBLE_EQ(c.physics.cfl, 0.8);    // float
  EXPECT_DOUBLE_EQ(c.physics.gamma, 2.0);  // integer where a float is expected
  EXPECT_EQ(c.out_dir, "res");             // quoted TOML string
  EXPECT_EQ(c.boundary[1][0], Boundary::Reflecting);
  EXPECT_EQ(c.max_steps, 7);
  EXPECT_DOUBLE_EQ(c.riemann.left.rho, 3.0);  // creates [riemann.left]
}

// An inline table is merged into the section it names, as its keys one by one would be: the
// deck's other keys (the vortex's domain, a preset's interface) stay. It replaced the section.
TEST(Deck, InlineTableOverrideMergesIntoItsSection) {
  Config c = load_deck(input("vortex.toml"), {"grid={nx=32, ny=16}"});
  EXPECT_EQ(c.n, (std::array<int, 3>{32, 16, 1}));
  EXPECT_DOUBLE_EQ(c.lo[0], -5.0);
  EXPECT_DOUBLE_EQ(c.hi[1], 5.0);
  c = load_deck(input("sod.toml"), {"riemann.preset=toro3", "riemann.x0=0.25", "riemann={direction=\"x\"}"});
  EXPECT_DOUBLE_EQ(c.riemann.x0, 0.25);
  EXPECT_EQ(c.riemann.preset, "toro3");
  // Nested: a state's keys merge too, and a message names the override that set the key.
  c = load_deck(input("sod.toml"), {"riemann.preset=custom", "riemann={left={rho=2}}"});
  EXPECT_DOUBLE_EQ(c.riemann.left.rho, 2.0);
  EXPECT_HAS(error_of(kBase, {"grid={nx=0, ny=4}"}), "--set grid={nx=0, ny=4}: ");
}

// The notes on keys without effect (bench's, a restart's) see the keys an inline table sets.
TEST(Deck, OverriddenKeysOfAnInlineTableAreItsOwn) {
  const auto time_or_sedov = [](const std::string& key) {
    return key == "time.max_steps" || key.rfind("sedov.", 0) == 0;
  };
  EXPECT_EQ(overridden_keys_that({"time={max_steps=5, t_end=2}", "grid.n=8"}, time_or_sedov), "time.max_steps has");
  EXPECT_EQ(overridden_keys_that({"sedov={energy=2, rho={}}", "time.max_steps=3", "sedov.energy=3"}, time_or_sedov),
            "sedov.energy, time.max_steps have");
  EXPECT_EQ(overridden_keys_that({"time={}", "layout=aos"}, time_or_sedov), "");
}

// A number TOML cannot hold (--set gives it as a word) is said to be one, not "a string".
TEST(Deck, OverrideBeyondADoublesRangeIsSaidSo) {
  const std::string m = error_of(kBase, {"physics.gamma=1e400"});
  EXPECT_HAS(m, "--set physics.gamma=1e400: ");
  EXPECT_HAS(m, "'physics.gamma' must be a number (got string '1e400', a number beyond a double's range)");
  EXPECT_HAS(error_of(kBase, {"physics.gamma=abc"}), "'physics.gamma' must be a number (got string)");
  EXPECT_HAS(error_of(kBase, {"time.max_steps=99999999999999999999"}),
             "'time.max_steps' must be an integer (got string '99999999999999999999', an integer beyond 64 bits)");
  EXPECT_HAS(error_of(kBase, {"time.max_steps=-99999999999999999999"}), "an integer beyond 64 bits)");
  EXPECT_HAS(error_of(kBase, {"grid.nx=1-2"}), "'grid.nx' must be an integer (got string)");
  // A number in quotes is a string that fits: said as such, not as beyond a range; a --set
  // word in a form TOML's numbers lack reads as text too.
  EXPECT_HAS(error_of(kBase, {"grid.nx=\"64\""}),
             "'grid.nx' must be an integer (got string '64', which TOML reads as text: a number in quotes, or in a "
             "form TOML lacks (.5, 5., 08))");
  EXPECT_HAS(error_of(kBase, {"physics.gamma=\"1.4\""}),
             "(got string '1.4', which TOML reads as text: a number in quotes, or in a form TOML lacks (.5, 5., 08))");
  std::string deck = kBase;
  const std::size_t at = deck.find("nx = ");
  ASSERT_NE(at, std::string::npos);
  deck.insert(at + 5, "\"");
  deck.insert(deck.find('\n', at), "\"");
  EXPECT_HAS(error_of(kBase, {"physics.gamma=.5"}), "(got string '.5', which TOML reads as text");
  EXPECT_HAS(error_of(deck, {}), "which TOML reads as text: a number in quotes, or in a form TOML lacks (.5, 5., 08))");
}

TEST(Deck, OverrideCreatesSection) {
  const Config c = parse_deck(kBase, "t.toml", {"run.precision=fp32", "output.final=false"});
  EXPECT_EQ(c.precision, Precision::FP32);
  EXPECT_FALSE(c.output_final);
}

TEST(Deck, OverrideErrors) {
  std::string m = error_of(kBase, {"grid.nx=abc"});
  EXPECT_HAS(m, "--set grid.nx=abc: ");
  EXPECT_HAS(m, "'grid.nx' must be an integer (got string)");
  m = error_of(kBase, {"grid.bogus=1"});
  EXPECT_HAS(m, "--set grid.bogus=1: ");
  EXPECT_HAS(m, "unknown key 'grid.bogus'");
  m = error_of(kBase, {"grid.nx"});
  EXPECT_HAS(m, "--set grid.nx: ");
  m = error_of(kBase, {"grid.nx=0"});
  EXPECT_HAS(m, "--set grid.nx=0: ");
  EXPECT_HAS(m, "grid.nx");
}

// A value written as a TOML string, array or table that is not one is refused: taken as a bare
// word it would name a directory with the quotes (and the newline) in it.
TEST(Deck, OverrideThatOpensATomlValueMustBeOne) {
  for (const std::string value : {"\"a\nb\"", "\"res", "'res", "[1, 2", "{a = 1"}) {
    const std::string m = error_of(kBase, {"output.dir=" + value});  // one line: the newline escaped
    EXPECT_HAS(m,
               "--set output.dir=" + (value == "\"a\nb\"" ? std::string("\"a\\nb\"") : value) + ": not a TOML value (");
  }
  EXPECT_EQ(parse_deck(kBase, "t.toml", {"output.dir=res\"x"}).out_dir, "res\"x");  // a word may hold a quote
  // Nor two values in one, through a newline, nor a word with a control character.
  EXPECT_HAS(error_of(kBase, {"output.dir=\"a\"\nb = 1"}), "--set output.dir=\"a\"\\nb = 1: not one TOML value");
  EXPECT_HAS(error_of(kBase, {"output.dir=a\tb"}), "--set output.dir=a\\tb: a value holds no control characters");
}

// ---- Bad input ----------------------------------------------------------------------------

// A density or pressure lies within the cube root of the precision's range: a subnormal one
// (1e-320) passed "> 0" and broke the first step, and a normal but tiny one (a pressure of
// 1e-300, or 1e-28 in fp32) broke step 1 (exit 3) instead of being bad input.
TEST(DeckErrors, StateValuesLieInsideTheCubeRootOfThePrecisionsRange) {
  EXPECT_HAS(error_of(kBase, {"riemann.left.rho=1e-320"}),
             "'riemann.left.rho' must be > 0, in [1e-100, 1e+100] in fp64");
  EXPECT_HAS(error_of(kBase, {"riemann.right.p=1e-300"}), "'riemann.right.p' must be > 0, in [1e-100, 1e+100] in fp64");
  EXPECT_HAS(error_of(kBase, {"riemann.right.p=1.1e100"}), "(got 1.1e+100)");
  EXPECT_HAS(error_of(kBase, {"riemann.left.rho=1e-28", "run.precision=fp32"}),
             "'riemann.left.rho' must be > 0, in [1e-12, 1e+12] in fp32");
  EXPECT_HAS(error_of(kBase, {"riemann.left.p=1.1e12", "run.precision=fp32"}), "(got 1.1e+12)");
  EXPECT_EQ(parse_deck(kBase, "t.toml", {"riemann.left.rho=1e-28"}).riemann.left.rho, 1e-28);  // inside fp64's
  EXPECT_EQ(parse_deck(kBase, "t.toml", {"riemann.left.p=1e-100", "riemann.right.p=1e100"}).riemann.right.p, 1e100);
  EXPECT_EQ(parse_deck(kBase, "t.toml", {"riemann.left.p=1e-12", "run.precision=fp32"}).riemann.left.p, 1e-12);
}

// A gamma of 1e308 passed "> 1" and broke step 1 (exit 3); one that fp32 rounds to 1 broke
// step 0.
TEST(DeckErrors, GammaIsAtMostTenAndAboveOneInTheRunsPrecision) {
  EXPECT_HAS(error_of(kBase, {"physics.gamma=1e308"}), "key 'physics.gamma' must be in (1, 10] (got 1e+308)");
  EXPECT_HAS(error_of(kBase, {"physics.gamma=14"}), "(got 14)");
  EXPECT_HAS(error_of(kBase, {"physics.gamma=1.0000000001", "run.precision=fp32"}),
             "must stay above 1 once rounded to fp32");
  EXPECT_HAS(error_of(kBase, {"physics.gamma=1.00000005", "run.precision=fp32"}), "(got 1.00000005)");
  // A gamma above 10 is refused for its range, with no word of fp32's rounding.
  EXPECT_EQ(error_of(kBase, {"physics.gamma=10.0000001", "run.precision=fp32"}).find("fp32"), std::string::npos);
  EXPECT_EQ(parse_deck(kBase, "t.toml", {"physics.gamma=1.0000000001"}).physics.gamma, 1.0000000001);  // fp64
  EXPECT_EQ(parse_deck(kBase, "t.toml", {"physics.gamma=10", "run.precision=fp32"}).physics.gamma, 10);
  EXPECT_EQ(parse_deck(kBase, "t.toml", {"physics.gamma=1.0000001", "run.precision=fp32"}).physics.gamma, 1.0000001);
}

TEST(DeckErrors, SyntaxError) {
  const std::string m = error_of(kBase + "[physics]\ngamma = = 1.4\n");
  EXPECT_HAS(m, "t.toml:11: ");
  EXPECT_HAS(m, "TOML syntax error");
}

TEST(DeckErrors, UnknownSection) {
  const std::string m = error_of(kBase + "[bogus]\nx = 1\n");
  EXPECT_HAS(m, "t.toml:10: ");
  EXPECT_HAS(m, "'[bogus]'");
}

TEST(DeckErrors, UnknownTopLevelKey) {
  const std::string m = error_of("bogus = 1\n" + kBase);
  EXPECT_HAS(m, "t.toml:1: ");
  EXPECT_HAS(m, "unknown key 'bogus'");
}

TEST(DeckErrors, UnknownKeyInSection) {
  std::string m = error_of(kBase + "[physics]\ngama = 1.4\n");
  EXPECT_HAS(m, "t.toml:11: ");
  EXPECT_HAS(m, "unknown key 'physics.gama'");
  m = error_of(kBase + "[riemann.left]\nrh = 1\n");
  EXPECT_HAS(m, "t.toml:11: ");
  EXPECT_HAS(m, "'riemann.left.rh'");
}

TEST(DeckErrors, WrongType) {
  std::string m = error_of(kBase + "[physics]\ngamma = \"1.4\"\n");
  EXPECT_HAS(m,
             "t.toml:11: key 'physics.gamma' must be a number (got string '1.4', which TOML reads as text: a number in "
             "quotes");
  m = error_of("[problem]\ntype = \"riemann\"\n[grid]\nnx = 64.0\n[time]\nt_end = 0.2\n");
  EXPECT_HAS(m, "t.toml:4: key 'grid.nx' must be an integer (got float)");
  m = error_of(kBase + "[output]\nfinal = 1\n");
  EXPECT_HAS(m, "t.toml:11: key 'output.final' must be a boolean");
  m = error_of("physics = 3\n" + kBase);
  EXPECT_HAS(m, "key 'physics' must be a table");
}

TEST(DeckErrors, MissingRequired) {
  std::string m = error_of("[grid]\nnx = 8\n[time]\nt_end = 1\n");
  EXPECT_HAS(m, "t.toml: missing required key 'problem.type'");
  m = error_of("[problem]\ntype = \"uniform\"\n[grid]\nxmax = 2.0\n[time]\nt_end = 1\n");
  EXPECT_HAS(m, "missing required key 'grid.n'");
  EXPECT_HAS(m, "grid.nx");
  m = error_of("[problem]\ntype = \"riemann\"\n[grid]\nnx = 8\n");
  EXPECT_HAS(m, "t.toml: missing required key 'time.t_end'");
}

TEST(DeckErrors, NonPositiveSizes) {
  std::string m = error_of("[problem]\ntype = \"uniform\"\n[grid]\nnx = 8\nny = 0\n[time]\nt_end = 1\n");
  EXPECT_HAS(m, "t.toml:5: key 'grid.ny' must be >= 1 (got 0)");
  m = error_of("[problem]\ntype = \"uniform\"\n[grid]\nn = -2\n[time]\nt_end = 1\n");
  EXPECT_HAS(m, "t.toml:4: key 'grid.n' must be >= 1");
  m = error_of(kBase + "[boundary]\nall = \"outflow\"\n", {"grid.nz=-1"});
  EXPECT_HAS(m, "--set grid.nz=-1: key 'grid.nz'");
}

TEST(DeckErrors, NonPositiveDensityPressure) {
  std::string m = error_of(kBase + "[riemann.left]\nrho = 0\n");
  EXPECT_HAS(m, "t.toml:11: key 'riemann.left.rho' must be > 0");
  m = error_of(kBase + "[riemann.right]\np = -0.1\n");
  EXPECT_HAS(m, "t.toml:11: key 'riemann.right.p' must be > 0");
  m = error_of("[problem]\ntype = \"sedov\"\n[grid]\nn = 8\n[time]\nt_end = 1\n[sedov]\np = 0\n");
  EXPECT_HAS(m, "t.toml:8: key 'sedov.p'");
  m = error_of("[problem]\ntype = \"uniform\"\n[grid]\nn = 8\n[time]\nt_end = 1\n[uniform]\nrho = -1\n");
  EXPECT_HAS(m, "t.toml:8: key 'uniform.rho'");
  m = error_of(
      "[problem]\ntype = \"kelvin_helmholtz\"\n[grid]\nn = 8\n[time]\nt_end = 1\n"
      "[kelvin_helmholtz]\nrho_outer = 0.0\n");
  EXPECT_HAS(m, "t.toml:8: key 'kelvin_helmholtz.rho_outer'");
  m = error_of(
      "[problem]\ntype = \"isentropic_vortex\"\n[grid]\nn = 8\n[time]\nt_end = 1\n"
      "[boundary]\nall = \"periodic\"\n[isentropic_vortex]\np = 0\n");
  EXPECT_HAS(m, "t.toml:10: key 'isentropic_vortex.p'");
}

TEST(DeckErrors, Cfl) {
  std::string m = error_of(kBase + "[physics]\ncfl = 0\n");
  EXPECT_HAS(m, "t.toml:11: key 'physics.cfl' must be in (0, 1]");
  m = error_of(kBase + "[physics]\ncfl = 1.5\n");
  EXPECT_HAS(m, "t.toml:11: key 'physics.cfl'");
  EXPECT_NO_THROW(parse_deck(kBase + "[physics]\ncfl = 1\n", "t.toml"));
}

TEST(DeckErrors, OtherRanges) {
  EXPECT_HAS(error_of(kBase + "[physics]\ngamma = 1\n"), "t.toml:11: key 'physics.gamma' must be in (1, 10]");
  EXPECT_HAS(error_of(kBase, {"time.t_end=0"}), "--set time.t_end=0: key 'time.t_end' must be > 0");
  EXPECT_HAS(error_of(kBase + "[output]\ninterval = -1\n"), "t.toml:11: key 'output.interval'");
  EXPECT_HAS(error_of(kBase, {"time.max_steps=-1"}), "key 'time.max_steps'");
  EXPECT_HAS(error_of(kBase, {"grid.xmax=-1"}), "key 'grid.xmax'");
}

TEST(DeckErrors, UnknownWords) {
  EXPECT_HAS(error_of(kBase + "[run]\nlayout = \"aos2\"\n"),
             "t.toml:11: key 'run.layout' must be one of aos, soa, aosoa (got 'aos2')");
  EXPECT_HAS(error_of(kBase + "[run]\nprecision = \"fp16\"\n"), "t.toml:11: key 'run.precision'");
  EXPECT_HAS(error_of(kBase + "[run]\nbackend = \"cuda\"\n"), "t.toml:11: key 'run.backend'");
  EXPECT_HAS(error_of("[problem]\ntype = \"blast\"\n[grid]\nn = 8\n[time]\nt_end = 1\n"),
             "t.toml:2: key 'problem.type'");
  EXPECT_HAS(error_of(kBase + "[physics]\nlimiter = \"superbee\"\n"), "t.toml:11: key 'physics.limiter'");
  EXPECT_HAS(error_of(kBase + "[physics]\nriemann = \"roe\"\n"), "t.toml:11: key 'physics.riemann'");
  EXPECT_HAS(error_of(kBase + "[boundary]\ny_hi = \"open\"\n"), "t.toml:11: key 'boundary.y_hi'");
  EXPECT_HAS(error_of(kBase + "[riemann]\npreset = \"toro9\"\n"), "t.toml:11: key 'riemann.preset'");
  EXPECT_HAS(error_of(kBase, {"run.layout=aos2"}), "--set run.layout=aos2: key 'run.layout'");
}

TEST(DeckErrors, PeriodicOneSide) {
  std::string m = error_of(kBase + "[boundary]\nx_lo = \"periodic\"\n");
  EXPECT_HAS(m, "t.toml:11: key 'boundary.x_lo' is periodic but 'boundary.x_hi' is outflow");
  m = error_of(kBase + "[boundary]\nall = \"periodic\"\nz_hi = \"reflecting\"\n");
  EXPECT_HAS(m, "t.toml:12: key 'boundary.z_lo' is periodic but 'boundary.z_hi' is reflecting");
}

TEST(DeckErrors, MismatchedProblemSection) {
  const std::string m = error_of(kBase + "[sedov]\nenergy = 2\n");
  EXPECT_HAS(m, "t.toml:11: key 'sedov.energy' applies to problem 'sedov' but problem.type is 'riemann'");
}

TEST(DeckErrors, ProblemRules) {
  // The Riemann direction needs cells along it; x0 must lie inside the domain.
  EXPECT_HAS(error_of(kBase + "[riemann]\ndirection = \"y\"\n"), "t.toml:11: key 'riemann.direction'");
  EXPECT_HAS(error_of(kBase + "[riemann]\nx0 = 1.5\n"), "t.toml:11: key 'riemann.x0'");
  // The vortex needs periodic x and y.
  EXPECT_HAS(error_of("[problem]\ntype = \"isentropic_vortex\"\n[grid]\nn = 8\n[time]\nt_end = 1\n"),
             "'boundary.x_lo' is outflow");
  EXPECT_HAS(error_of(kBase + "[uniform]\n", {"problem.type=uniform", "uniform.perturbation=1"}),
             "--set uniform.perturbation=1: key 'uniform.perturbation'");
}

TEST(DeckErrors, UnreadableFile) {
  try {
    load_deck("/nonexistent/deck.toml");
    FAIL() << "no DeckError";
  } catch (const DeckError& e) {
    EXPECT_STREQ(e.what(), "cannot read deck '/nonexistent/deck.toml': No such file or directory");
  }
  EXPECT_THROW(load_deck(std::string(HALOCLINE_SOURCE_DIR) + "/inputs"), DeckError);
}

TEST(DeckErrors, ValidateWithoutDeck) {
  Config c = load_deck(input("sod.toml"));
  EXPECT_NO_THROW(validate(c));
  c.physics.cfl = 2.0;
  try {
    validate(c);
    FAIL() << "no DeckError";
  } catch (const DeckError& e) {
    EXPECT_HAS(std::string(e.what()), input("sod.toml") + ": key 'physics.cfl'");
  }
}

TEST(DeckWords, PublicParsers) {
  EXPECT_EQ(parse_layout("aosoa"), LayoutKind::AoSoA);
  EXPECT_EQ(parse_precision("fp32"), Precision::FP32);
  EXPECT_EQ(parse_backend("kokkos"), BackendKind::Kokkos);
  try {
    parse_layout("x", "--layout");
    FAIL() << "no DeckError";
  } catch (const DeckError& e) {
    EXPECT_STREQ(e.what(), "--layout: must be one of aos, soa, aosoa (got 'x')");
  }
  EXPECT_STREQ(problem_name(ProblemKind::KelvinHelmholtz), "kelvin_helmholtz");
  EXPECT_STREQ(boundary_name(Boundary::Reflecting), "reflecting");
  EXPECT_STREQ(limiter_name(Limiter::VanLeer), "vanleer");
  EXPECT_STREQ(riemann_name(RiemannSolver::Rusanov), "rusanov");
  EXPECT_STREQ(precision_name(Precision::FP64), "fp64");
  EXPECT_STREQ(backend_name(BackendKind::Kokkos), "kokkos");
}

}  // namespace
}  // namespace halocline

// Inputs that once crashed the deck fuzzer or were written to probe it
// (tests/fuzz/regressions/, same format as the fuzzer's: a deck, then optionally "---" and
// one override a line): each must end in a DeckError, never a crash or another exception.
TEST(DeckFuzzRegressions, EveryFileIsRefusedCleanly) {
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(HALOCLINE_SOURCE_DIR) / "tests/fuzz/regressions")) {
    std::ifstream in(e.path(), std::ios::binary);
    const std::string input((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string deck = input;
    std::vector<std::string> overrides;
    const std::size_t split = input.find("\n---\n");
    if (split != std::string::npos) {
      deck = input.substr(0, split);
      std::istringstream rest(input.substr(split + 5));
      for (std::string line; std::getline(rest, line);) overrides.push_back(line);
    }
    ++files;
    EXPECT_THROW(halocline::parse_deck(deck, e.path().filename().string(), overrides), halocline::DeckError)
        << e.path();
  }
  EXPECT_GE(files, 6);
}
