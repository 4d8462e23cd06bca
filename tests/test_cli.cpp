// The command line as a user meets it: the real binary is run (fork/exec, stdout and stderr
// to files in a fresh temp dir, working directory the repo root) and its exit status,
// messages and output files are checked. See app/main.cpp and docs/decks.md.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "app/probe.hpp"
#include "app/provenance.hpp"
#include "app/select.hpp"
#include "io/config.hpp"
#include "kernels/fused_tile.hpp"
#include "tests/schema_check.hpp"
#include "tests/test_support.hpp"

namespace hc = halocline;

namespace fs = std::filesystem;

namespace {

struct Result {
  int code = -1;  // exit status, or -1 when the process did not exit normally
  std::string out, err;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string cfg_backend(const nlohmann::json& report) { return report.at("config").at("backend"); }
std::string cfg_backend_default() { return hc::backend_name(hc::default_backend()); }

// A fresh, empty temp dir per test, removed afterwards.
class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "halocline_cli_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // run() of `base` followed by `more`: one command line's fixed part and its variations.
  Result run(std::vector<std::string> base, const std::vector<std::string>& more) {
    base.insert(base.end(), more.begin(), more.end());
    return run(base);
  }

  // Runs `halocline args...` in the repo root; stdout and stderr go to files in dir_.
  Result run(const std::vector<std::string>& args) {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    std::vector<std::string> argv_s = {HALOCLINE_BINARY};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int fd_out = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int fd_err = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const pid_t pid = fork();
    if (pid == 0) {  // only async-signal-safe calls here: the parent may have threads
      if (fd_out < 0 || fd_err < 0 || dup2(fd_out, 1) < 0 || dup2(fd_err, 2) < 0 || chdir(HALOCLINE_SOURCE_DIR) != 0)
        _exit(127);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fd_out);
    close(fd_err);
    Result r;
    int status = 0;
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)) r.code = WEXITSTATUS(status);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(read_file(p)); }

  fs::path dir_;
};

// ---- Bad input: exit 2, one line on stderr naming the problem, no output directory -------

// A valid deck; the cases below change one line of it, so line numbers are known.
const std::vector<std::string> kRiemann = {
    "[problem]", "type = \"riemann\"",  // 1, 2
    "[grid]",    "nx = 64",             // 3, 4
    "[physics]", "cfl = 0.4",           // 5, 6
    "[time]",    "t_end = 0.1",         // 7, 8
};
const std::vector<std::string> kUniform = {
    "[problem]", "type = \"uniform\"",  // 1, 2
    "[grid]",    "n = 4",               // 3, 4
    "[time]",    "t_end = 0.1",         // 5, 6
    "[uniform]", "rho = 1.0",
    "p = -1",  // 7, 8, 9
};

struct BadCase {
  std::string name;
  std::vector<std::string> deck;    // written to DIR/bad.toml; empty: use inputs/sod.toml
  std::vector<std::string> args;    // after `run DECK`
  std::vector<std::string> expect;  // substrings of the message ("bad.toml:N" for a line)
};
void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

std::vector<std::string> with(std::vector<std::string> d, int line, const std::string& text) {
  d.at(line - 1) = text;
  return d;
}
std::vector<std::string> without(std::vector<std::string> d, int line) {
  d.erase(d.begin() + (line - 1));
  return d;
}
std::vector<std::string> plus(std::vector<std::string> d, std::vector<std::string> more) {
  d.insert(d.end(), more.begin(), more.end());
  return d;
}

const std::vector<BadCase>& bad_cases() {
  static const std::vector<BadCase> cases = {
      {"MissingDeckFile", {}, {"@nope.toml"}, {"cannot read deck", "nope.toml"}},
      {"DeckIsADirectory", {}, {"@."}, {"cannot read deck"}},
      {"TomlSyntaxError", with(kRiemann, 4, "nx = = 64"), {}, {"bad.toml:4:", "TOML syntax"}},
      {"UnknownKey", with(kRiemann, 6, "cfll = 0.4"), {}, {"bad.toml:6:", "'physics.cfll'"}},
      {"UnknownSection", plus(kRiemann, {"[bogus]", "x = 1"}), {}, {"bogus"}},
      {"WrongType", with(kRiemann, 4, "nx = \"64\""), {}, {"bad.toml:4:", "'grid.nx'", "integer"}},
      {"MissingProblemType", without(kRiemann, 2), {}, {"missing", "'problem.type'"}},
      {"MissingGridSize", without(kRiemann, 4), {}, {"missing", "grid.n"}},
      {"MissingTEnd", without(kRiemann, 8), {}, {"missing", "'time.t_end'"}},
      {"GridNxZero", with(kRiemann, 4, "nx = 0"), {}, {"bad.toml:4:", "'grid.nx'", ">= 1"}},
      {"GridNxNegative", with(kRiemann, 4, "nx = -4"), {}, {"bad.toml:4:", "'grid.nx'", "-4"}},
      {"RiemannLeftRhoZero",
       plus(kRiemann, {"[riemann.left]", "rho = 0"}),
       {},
       {"bad.toml:10:", "'riemann.left.rho'", "> 0"}},
      {"UniformPressureNegative", kUniform, {}, {"bad.toml:9:", "'uniform.p'", "> 0"}},
      // On an even grid the nearest cell centres lie sqrt(3)/2 cells from the domain's centre: a
      // smaller radius would deposit no energy at all.
      {"SedovRadiusHoldsNoCellCentre",
       {"[problem]", "type = \"sedov\"", "[grid]", "n = 8", "[time]", "t_end = 0.1", "[sedov]", "radius_cells = 0.86"},
       {},
       {"'sedov.radius_cells'", "no cell centre", "0.866025"}},
      {"CflZero", with(kRiemann, 6, "cfl = 0"), {}, {"bad.toml:6:", "'physics.cfl'"}},
      {"CflAboveOne", with(kRiemann, 6, "cfl = 1.5"), {}, {"bad.toml:6:", "'physics.cfl'", "1.5"}},
      {"UnknownProblemType", with(kRiemann, 2, "type = \"blast\""), {}, {"bad.toml:2:", "'problem.type'", "blast"}},
      {"UnknownLayoutOption", {}, {"--layout", "aos2"}, {"--layout", "aos2"}},
      {"UnknownLayoutSet", {}, {"--set", "run.layout=aos2"}, {"--set run.layout=aos2", "'run.layout'"}},
      {"UnknownPrecision", {}, {"--precision", "fp16"}, {"--precision", "fp16"}},
      {"UnknownPrecisionSet", {}, {"--set", "run.precision=fp16"}, {"'run.precision'", "fp16"}},
      {"UnknownCliOption", {}, {"--bogus"}, {"--bogus"}},
      // Named first, as typed (CLI11 listed "32 --szie": its extras reversed, the value first).
      {"UnknownCliOptionWithValue", {}, {"--stpes", "32"}, {"unknown option '--stpes'"}},
      // A known option that begins the unknown one is not the one named.
      {"UnknownOptionBesideItsPrefix", {}, {"--steps", "3", "--steps-max", "4"}, {"unknown option '--steps-max'"}},
      {"StepsNotANumber", {}, {"--steps", "abc"}, {"--steps", "abc"}},
      // CLI11's own words ("At Most 1 required but received 2", "1 required INT:>= 1 missing",
      // "Could not convert: ...", "The following argument was not expected") said plainly.
      {"StepsGivenTwice", {}, {"--steps", "3", "--steps", "4"}, {"--steps: given 2 times; give it once"}},
      {"FlagGivenAWord", {}, {"--quiet=abc"}, {"--quiet: cannot read 'abc'"}},
      {"SecondDeck", {}, {"other.toml"}, {"unexpected argument 'other.toml'"}},
      // CLI11's own list of the words left, in the order typed (its message listed them
      // reversed), each once however often it appears elsewhere on the line, '=' and all.
      {"WordsLeftInTheOrderTyped",
       {},
       {"b.toml", "grid.n=256"},
       {"unexpected arguments 'b.toml', 'grid.n=256' (--help says what the command takes)"}},
      {"ValueGivenTwice", {}, {"--steps", "10", "10"}, {"unexpected argument '10' ("}},
      {"RanksGridBeyondAnInt",
       {},
       {"--ranks-grid", "99999999999,1,1"},
       {"--ranks-grid: must be at most 2147483647 (got 99999999999)"}},
      {"StepsZero", {}, {"--steps", "0"}, {"--steps"}},
      {"ReportDirUnwritable", {}, {"--report", "/proc/halocline/r.json"}, {"/proc/halocline"}},
      {"StepsNegative", {}, {"--steps", "-3"}, {"--steps"}},
      {"SetUnknownKey", {}, {"--set", "grid.bogus=1"}, {"--set grid.bogus=1", "'grid.bogus'"}},
      {"SetWrongType", {}, {"--set", "grid.nx=abc"}, {"'grid.nx'", "integer"}},
      // A deck may not make the run write outside the directory it starts in.
      {"DeckOutputDirAbsolute",
       plus(kRiemann, {"[output]", "dir = \"/tmp/elsewhere\""}),
       {},
       {"bad.toml:10:", "'output.dir'", "relative path"}},
      {"DeckOutputDirUp", plus(kRiemann, {"[output]", "dir = \"out/../../x\""}), {}, {"'output.dir'", "no '..'"}},
      {"DeckCheckpointDirAbsolute",
       plus(kRiemann, {"[checkpoint]", "dir = \"/etc\""}),
       {},
       {"'checkpoint.dir'", "below the output directory"}},
      {"CheckpointKeepZero", plus(kRiemann, {"[checkpoint]", "keep = 0"}), {}, {"'checkpoint.keep'", ">= 1"}},
      {"RestartMissing",
       {},
       {"--restart", "/nonexistent/checkpoint_00000001.h5"},
       {"checkpoint '/nonexistent/checkpoint_00000001.h5' does not exist"}},
  };
  return cases;
}

class CliBadInput : public Cli, public ::testing::WithParamInterface<BadCase> {};

TEST_P(CliBadInput, ExitsTwoWithOneLineAndNoOutput) {
  const BadCase& c = GetParam();
  std::string deck = "inputs/sod.toml";
  std::vector<std::string> extra = c.args;
  if (!extra.empty() && extra[0][0] == '@') {  // "@name": that path inside the temp dir
    deck = (dir_ / extra[0].substr(1)).string();
    extra.erase(extra.begin());
  } else if (!c.deck.empty()) {
    deck = (dir_ / "bad.toml").string();
    std::string text;
    for (const auto& line : c.deck) text += line + "\n";
    write_file(deck, text);
  }
  const fs::path out = dir_ / "never_created";
  std::vector<std::string> args = {"run", deck};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--out", out.string()});

  const Result r = run(args);
  EXPECT_EQ(r.code, 2) << "stderr: " << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not exactly one line:\n" << r.err;
  EXPECT_EQ(r.err.rfind("halocline: error: ", 0), 0u) << r.err;
  for (const auto& s : c.expect) EXPECT_NE(r.err.find(s), std::string::npos) << "no '" << s << "' in: " << r.err;
  EXPECT_FALSE(fs::exists(out)) << "bad input left " << out;
}

INSTANTIATE_TEST_SUITE_P(Cases, CliBadInput, ::testing::ValuesIn(bad_cases()),
                         [](const ::testing::TestParamInfo<BadCase>& i) { return i.param.name; });

// An option that ends the line with no value (CLI11: "--steps: 1 required INT:>= 1 missing").
// Not a CliBadInput case: those end with --out DIR, which the option would take as its value.
TEST_F(Cli, AnOptionWithoutItsValueSaysSo) {
  const Result r = run({"run", "inputs/sod.toml", "--steps"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "halocline: error: --steps: needs a value (--help says what it takes)\n");
}

// ---- --version, --help, no subcommand ----------------------------------------------------

// The version, the commit it was built from (the one `info` reports), the backends and the
// build.
TEST_F(Cli, VersionPrintsNameVersionCommitAndBuild) {
  const Result r = run({"--version"});
  EXPECT_EQ(r.code, 0);
  ASSERT_EQ(r.out.rfind("halocline ", 0), 0u) << r.out;
  const std::string v = r.out.substr(10, r.out.find(' ', 10) - 10);
  EXPECT_NE(v.find_first_of("0123456789"), std::string::npos) << v;
  const Result info = run({"info", "--json"});
  ASSERT_EQ(info.code, 0) << info.err;
  const nlohmann::json build = nlohmann::json::parse(info.out).at("build");
  const std::string commit = build.at("commit").get<std::string>();
  EXPECT_NE(r.out.find("(commit " + commit), std::string::npos) << r.out;
  EXPECT_EQ(commit == "unknown" || commit.size() == 12, true) << commit;
  EXPECT_NE(r.out.find("\nbackends: " + build.at("backends").get<std::string>() + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nbuilt with: "), std::string::npos) << r.out;
}

TEST_F(Cli, HelpMentionsSubcommands) {
  const Result r = run({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verify"), std::string::npos) << r.out;
}

// Said in the project's words (CLI11: "A subcommand is required"), with or without options.
TEST_F(Cli, NoSubcommandIsBadInput) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{}, {"--bogus"}}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err,
              "halocline: error: no command given (the commands: run, verify, bench, benchmark, compare, probe, info; "
              "--help says what each does)\n");
  }
}

// A command without the input it reads says what it needs (CLI11: "files is required").
TEST_F(Cli, ACommandWithoutItsInputSaysWhatItNeeds) {
  for (const auto& [command, needs] : std::vector<std::pair<std::string, std::string>>{
           {"run", "run: needs a deck (a TOML file; inputs/ has examples)"},
           {"bench", "bench: needs a deck"},
           {"compare", "compare: needs the benchmark results to compare"}}) {
    const Result r = run({command});
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_EQ(r.err.rfind("halocline: error: " + needs, 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
}

// A first word that is no command is named as such; --version after a command is --version.
TEST_F(Cli, UnknownCommandIsNamedAndVersionWorksAfterACommand) {
  const Result r = run({"frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(
      r.err.find("unknown command 'frobnicate' (the commands: run, verify, bench, benchmark, compare, probe, info)"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  for (const char* command : {"run", "bench", "probe", "info", "verify"}) {
    const Result v = run({command, "--version"});
    EXPECT_EQ(v.code, 0) << command << ": " << v.err;
    EXPECT_EQ(v.out.rfind("halocline ", 0), 0u) << command << ": " << v.out;
  }
}

// A swept value the deck refuses is blamed on the sweep the user wrote, not on the --set it
// becomes inside.
TEST_F(Cli, BadSweptDeckKeyNamesTheSweep) {
  const Result r = run({"bench", "inputs/bench.toml", "--sweep", "foo=1,2", "--out", (dir_ / "b").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--sweep foo (value '1'): unknown key 'foo'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--set"), std::string::npos) << r.err;
}

// Every command line the documentation shows starts with a command (docs/decks.md's examples
// once lacked `run`, and failed as written).
TEST(CliDocs, EveryDocumentedCommandLineNamesACommand) {
  std::vector<fs::path> pages = {fs::path(HALOCLINE_SOURCE_DIR) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(HALOCLINE_SOURCE_DIR) / "docs"))
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  int lines = 0;
  for (const fs::path& page : pages) {
    std::ifstream in(page);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      // A line whose first word is the program (halocline, build/bin/halocline, ...).
      std::istringstream words(line);
      std::string program, command;
      words >> program >> command;
      const std::string name = "halocline";
      if (program.size() < name.size() || program[0] == '`' ||
          program.compare(program.size() - name.size(), name.size(), name) != 0 ||
          (program.size() > name.size() && program[program.size() - name.size() - 1] != '/'))
        continue;
      ++lines;
      EXPECT_TRUE(command == "run" || command == "bench" || command == "verify" || command == "probe" ||
                  command == "info" || command == "benchmark" || command == "compare" || command == "--version" ||
                  command == "--help")
          << page.filename().string() << ":" << number << ": " << line;
    }
  }
  EXPECT_GT(lines, 10);
}

// --out wins over a --set output.dir beside it, which is then not checked either.
TEST_F(Cli, OutWinsOverASetOutputDir) {
  const fs::path out = dir_ / "chosen";
  const Result r = run({"run", "inputs/sod.toml", "--set", "grid.nx=16", "--set", "output.dir=/elsewhere", "--out",
                        out.string(), "--quiet", "--no-probe"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "report.json"));
  EXPECT_FALSE(fs::exists("/elsewhere"));
}

// Every option that takes a value says what it is when not given.
TEST_F(Cli, HelpShowsEveryDefault) {
  for (const char* command : {"run", "bench", "benchmark", "compare", "probe", "info"}) {
    const Result r = run({command, "--help"});
    ASSERT_EQ(r.code, 0) << command;
    std::istringstream lines(r.out);
    std::string line;
    int options = 0;
    while (std::getline(lines, line)) {
      // An option with a value: "  --name TEXT ..." or "INT", with its description after.
      if (line.rfind("  --", 0) != 0 ||
          line.find(" TEXT") == std::string::npos && line.find(" INT") == std::string::npos)
        continue;
      ++options;
      if (line.find("--set ") != std::string::npos || line.find("--sweep ") != std::string::npos)
        continue;  // repeatable: none unless given
      // "(default: ...)" in the text, or CLI11's "=value" after the type (not the ">=" of a range).
      static const std::regex shown("[^<>=\\s]=[^\\s=]");
      EXPECT_TRUE(line.find("default") != std::string::npos || std::regex_search(line, shown))
          << command << ": " << line;
    }
    EXPECT_GT(options, 0) << command;
  }
}

// One repetition of one step is said in the singular.
TEST_F(Cli, BenchSummaryCountsInTheSingular) {
  const Result r = run({"bench", "inputs/bench.toml", "--set", "grid.n=8", "--sweep", "layout=soa", "--repeat", "1",
                        "--steps", "1", "--quiet", "--out", (dir_ / "b").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("one run per configuration: 1 repetition of 1 step after "), std::string::npos) << r.out;
}

// ---- A good run and its report ---------------------------------------------------------

// A run into a directory where an earlier run wrote more snapshots leaves them (no file the
// run names) and says which they are: its series file lists only its own.
TEST_F(Cli, ARunNamesTheSnapshotsAnEarlierRunLeftAfterItsLast) {
  const std::string out = (dir_ / "series").string();
  const auto run_with = [&](const char* interval) {
    return run({"run", "inputs/sod.toml", "--set", "grid.nx=32", "--set", std::string("output.interval=") + interval,
                "--out", out, "--no-probe", "--quiet"});
  };
  Result r = run_with("0.05");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ASSERT_TRUE(fs::exists(fs::path(out) / "snapshot_0004.h5"));
  r = run_with("0.1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "halocline: note: " + out +
                       "/snapshot_0003.h5 to snapshot_0004.h5 (2 files) are from an earlier run in this directory: the "
                       "series file lists only this run's\n");
  EXPECT_TRUE(fs::exists(fs::path(out) / "snapshot_0004.h5"));  // left as it was
  const std::string series = read_file(fs::path(out) / "snapshot.xmf");
  EXPECT_NE(series.find("snapshot_0002.h5"), std::string::npos);
  EXPECT_EQ(series.find("snapshot_0003.h5"), std::string::npos);
  r = run_with("0.1");  // the same run again: nothing of another's after its last but those two
  EXPECT_NE(r.err.find("(2 files)"), std::string::npos) << r.err;
}

// A restart numbers its snapshots as the run it continues did; that run's final snapshot, past
// the checkpoint and between two output times, took the next number, which the restart's own
// snapshot of the next output time then replaced without a word (a multi-rank trial,
// 2026-12-07; on one rank alike). It is named now.
TEST_F(Cli, ARestartNamesTheSnapshotItsOwnReplaced) {
  const std::string out = (dir_ / "replaced").string();
  const std::vector<std::string> common = {"--no-probe", "--quiet",
                                           "--set",      "grid.nx=30",
                                           "--set",      "grid.ny=7",
                                           "--set",      "output.interval=0.01",
                                           "--set",      "checkpoint.every_steps=7",
                                           "--set",      "checkpoint.keep=1",
                                           "--out",      out};
  Result r = run({"run", "inputs/kh.toml", "--steps", "20"}, common);
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path last = fs::path(out) / "snapshot_0007.h5";
  ASSERT_TRUE(fs::exists(last));  // the final snapshot, at step 20, between t = 0.06 and 0.07
  r = run({"run", "inputs/kh.toml", "--steps", "40", "--restart", out + "/checkpoint_00000014.h5"}, common);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("halocline: note: " + last.string() +
                       " is from an earlier run in this directory: it lay past the checkpoint this run restarted "
                       "from, and this run's snapshot of the same number replaced it"),
            std::string::npos)
      << r.err;
}

TEST_F(Cli, SodRunWritesReportAndSnapshot) {
  const Result v = run({"--version"});
  ASSERT_EQ(v.code, 0);
  const std::string version = v.out.substr(10, v.out.find(' ', 10) - 10);

  const fs::path out = dir_ / "sod_out";
  const Result r = run({"run", "inputs/sod.toml", "--out", out.string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "") << "--quiet printed on stdout";
  EXPECT_EQ(r.err, "") << "--quiet printed on stderr";
  EXPECT_TRUE(fs::exists(out / "snapshot_0000.h5"));
  EXPECT_TRUE(fs::exists(out / "snapshot_0000.xmf"));
  ASSERT_TRUE(fs::exists(out / "report.json"));
  const nlohmann::json j = read_json(out / "report.json");

  EXPECT_EQ(j.at("halocline_version").get<std::string>(), version);
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("run")), "");
  // One rank: its process holds all the host bytes the plan gives the node.
  const nlohmann::json& peak = j.at("host_bytes_peak");
  EXPECT_GT(peak.at("planned").get<double>(), 0.0);
  EXPECT_EQ(peak.at("planned_largest_process"), peak.at("planned"));
  // The device's copy bandwidth, measured for this output directory and kept there, and
  // the run's effective bandwidth as a share of it.
  EXPECT_EQ(j.at("probe").at("source"), "measured");
  EXPECT_TRUE(fs::exists(out / hc::probe_cache_name(cfg_backend(j), j.at("probe").at("device"))));
  const double fraction = j.at("fom").at("fraction_of_copy_bandwidth").get<double>();
  EXPECT_NEAR(fraction,
              j.at("traffic").at("effective_bandwidth_Bps").get<double>() / j.at("probe").at("copy_Bps").get<double>(),
              1e-12);
  EXPECT_GT(fraction, 0.0);
  // The arithmetic limit of the split kernels' HLLC cell-update in 1-D (docs/report.md) at the
  // probe's fp64 rates, and the FOM's fraction of it.
  const auto& arithmetic = j.at("arithmetic");
  EXPECT_EQ(arithmetic.at("path"), "split");
  EXPECT_EQ(arithmetic.at("per_cell_update").at("div"), 2 * (4 + 3) + 2);
  EXPECT_EQ(arithmetic.at("rates").at("precision"), "fp64");
  const double limit = arithmetic.at("limit_cell_updates_per_s").get<double>();
  EXPECT_GT(limit, 0.0);
  EXPECT_DOUBLE_EQ(j.at("fom").at("fraction_of_arithmetic_limit").get<double>(),
                   j.at("fom").at("cell_updates_per_s").get<double>() / limit);
  const auto& cfg = j.at("config");
  EXPECT_EQ(cfg.at("backend"), hc::backend_name(hc::default_backend()));
  EXPECT_EQ(cfg.at("layout"), "soa");
  EXPECT_EQ(cfg.at("precision"), "fp64");
  const std::string deck = cfg.at("deck").get<std::string>();
  EXPECT_GE(deck.size(), 8u);
  EXPECT_EQ(deck.substr(deck.size() - 8), "sod.toml") << deck;
  EXPECT_EQ(cfg.at("grid"), nlohmann::json({128, 1, 1}));

  const long steps = j.at("steps").get<long>();
  EXPECT_GT(steps, 0);
  EXPECT_EQ(j.at("sim_time").get<double>(), 0.2);  // exact: the driver lands on t_end
  EXPECT_GT(j.at("wall_s").get<double>(), 0.0);
  // The one FOM (docs/report.md): interior cells / median step time, as bench and benchmark;
  // the loop's rate under its own name.
  EXPECT_DOUBLE_EQ(j.at("fom").at("cell_updates_per_s").get<double>(),
                   128.0 / j.at("step_time_s").at("median").get<double>());
  EXPECT_DOUBLE_EQ(j.at("loop_cell_updates_per_s").get<double>(), 128.0 * steps / j.at("loop_s").get<double>());

  const auto& timers = j.at("timers");
  for (const char* name : {"dt_reduction", "stage1.reconstruct_flux", "stage2.update", "output"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(timers.contains(name));
    const auto& t = timers.at(name);
    for (const char* f : {"total_s", "calls", "mean_s", "min_s", "max_s"}) ASSERT_TRUE(t.contains(f)) << f;
    const double mn = t.at("min_s"), mean = t.at("mean_s"), mx = t.at("max_s");
    EXPECT_GT(t.at("calls").get<long>(), 0);
    EXPECT_LE(mn, mean * (1 + 1e-12));  // slack for the rounding of total / calls
    EXPECT_LE(mean, mx * (1 + 1e-12));
    // The timers cover the steps after the warm-up; a GPU backend's host learns of the
    // end one step late, so one more (empty) step may have been asked for and timed.
    if (std::string(name) != "output") {
      const long timed = j.at("timed_steps").at("count").get<long>();
      EXPECT_EQ(t.at("calls").get<long>(), timed);
      EXPECT_GE(timed, steps - 2);
      EXPECT_LE(timed, steps - 1);
    }
  }
  EXPECT_EQ(timers.at("output").at("calls").get<long>(), 1);  // the final snapshot only
  EXPECT_EQ(j.at("steps_submitted").get<long>() - 2, j.at("timed_steps").at("count").get<long>());

  const double m0 = j.at("conservation").at("initial").at("mass");
  const double m1 = j.at("conservation").at("final").at("mass");
  EXPECT_NEAR(m0, 0.5625, 1e-12);  // 0.5 * 1 + 0.5 * 0.125
  EXPECT_NEAR(m1, m0, 1e-12);      // no wave reaches the boundary by t = 0.2

  const std::string sum = j.at("checksum").get<std::string>();
  EXPECT_EQ(sum.size(), 16u) << sum;
  EXPECT_EQ(sum.find_first_not_of("0123456789abcdef"), std::string::npos) << sum;
}

// ---- Provenance: every file a command writes says where it came from ---------------------

// The record of the command the test ran: its words as the program got them, from the
// source directory (where Cli::run starts it), made between `before` and now.
void expect_provenance_of(const nlohmann::json& p, const std::vector<std::string>& args, std::time_t before) {
  EXPECT_EQ(hc::test::schema_violation(p, hc::test::load_schema("provenance")), "");
  std::vector<std::string> words = {HALOCLINE_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  EXPECT_EQ(p.at("command_line"), hc::shell_command(words));
  EXPECT_EQ(p.at("working_directory"), fs::canonical(HALOCLINE_SOURCE_DIR).string());
  std::tm utc{};
  ASSERT_NE(strptime(p.at("date").get<std::string>().c_str(), "%Y-%m-%dT%H:%M:%SZ", &utc), nullptr) << p;
  EXPECT_GE(timegm(&utc), before);
  EXPECT_LE(timegm(&utc), std::time(nullptr));
  EXPECT_EQ(p.at("version"), HALOCLINE_VERSION);
}

// One record per run, the same in the report, the probe it measured, every snapshot (the
// first and the final one) and every checkpoint.
TEST_F(Cli, EveryFileOfARunCarriesOneProvenance) {
  const std::time_t before = std::time(nullptr);
  const fs::path out = dir_ / "sod out";  // a space: the command line quotes it
  const std::vector<std::string> args = {
      "run",   "inputs/sod.toml",     "--set", "grid.nx=32", "--set",  "checkpoint.every_steps=5",
      "--set", "output.interval=0.1", "--out", out.string(), "--quiet"};
  const Result r = run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json report = read_json(out / "report.json");
  EXPECT_EQ(hc::test::schema_violation(report, hc::test::load_schema("run")), "");
  const nlohmann::json& p = report.at("provenance");
  expect_provenance_of(p, args, before);
  EXPECT_NE(p.at("command_line").get<std::string>().find("'" + out.string() + "'"), std::string::npos) << p;
  const nlohmann::json probe = read_json(out / hc::probe_cache_name(cfg_backend(report), report["probe"]["device"]));
  EXPECT_EQ(probe.at("provenance"), p);
  std::vector<fs::path> files = {out / "snapshot_0000.h5", out / "snapshot_0002.h5"};  // t = 0 and the end
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().filename().string().rfind("checkpoint_", 0) == 0) files.push_back(e.path());
  ASSERT_GE(files.size(), 3u);
  for (const fs::path& file : files) EXPECT_EQ(hc::test::read_provenance_group(file), p) << file;
}

// info --json, probe's JSON and bench's (and each of its runs' reports) carry it too; the
// text of info lists the machine.
TEST_F(Cli, InfoProbeAndBenchCarryTheProvenance) {
  const std::time_t before = std::time(nullptr);
  const Result info = run({"info", "--json"});
  ASSERT_EQ(info.code, 0) << info.err;
  expect_provenance_of(nlohmann::json::parse(info.out).at("provenance"), {"info", "--json"}, before);
  const Result text = run({"info"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("machine and command\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  cpu_model"), std::string::npos) << text.out;

  const std::vector<std::string> probe_args = {"probe", "--quick", "--json", (dir_ / "probe.json").string()};
  ASSERT_EQ(run(probe_args).code, 0);
  const nlohmann::json probe = read_json(dir_ / "probe.json");
  EXPECT_EQ(hc::test::schema_violation(probe, hc::test::load_schema("probe")), "");
  expect_provenance_of(probe.at("provenance"), probe_args, before);

  const std::vector<std::string> bench_args = {"bench",    "inputs/bench.toml",
                                               "--set",    "grid.n=8",
                                               "--sweep",  "layout=aos,soa",
                                               "--repeat", "1",
                                               "--steps",  "1",
                                               "--out",    (dir_ / "bench").string(),
                                               "--quiet"};
  ASSERT_EQ(run(bench_args).code, 0);
  const nlohmann::json bench = read_json(dir_ / "bench" / "bench.json");
  EXPECT_EQ(hc::test::schema_violation(bench, hc::test::load_schema("bench")), "");
  expect_provenance_of(bench.at("provenance"), bench_args, before);
  for (const char* row : {"0", "1"})
    EXPECT_EQ(read_json(dir_ / "bench" / "runs" / row / "report.json").at("provenance"), bench.at("provenance")) << row;
}

// ---- Layouts agree; --report writes where it is told -------------------------------------

TEST_F(Cli, LayoutsGiveSameChecksumAndReportGoesToGivenFile) {
  std::vector<std::string> sums;
  for (const std::string layout : {"aos", "soa", "aosoa"}) {
    SCOPED_TRACE(layout);
    const fs::path report = dir_ / "reports" / (layout + ".json");
    const fs::path out = dir_ / ("out_" + layout);
    const Result r = run({"run", "inputs/bench.toml", "--set", "grid.n=16", "--steps", "3", "--layout", layout, "--out",
                          out.string(), "--report", report.string(), "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(fs::exists(report));
    EXPECT_FALSE(fs::exists(out / "report.json")) << "--report ignored";
    const nlohmann::json j = read_json(report);
    EXPECT_EQ(j.at("config").at("layout"), layout);
    EXPECT_EQ(j.at("config").at("grid"), nlohmann::json({16, 16, 16}));
    EXPECT_EQ(j.at("steps").get<long>(), 3);
    sums.push_back(j.at("checksum").get<std::string>());
  }
  EXPECT_EQ(sums[0], sums[1]) << "aos vs soa";
  EXPECT_EQ(sums[1], sums[2]) << "soa vs aosoa";
}

}  // namespace

namespace {

// A grid whose arrays cannot fit in the host's available memory is refused before any
// allocation: exit 2, one line with the bytes needed and available.
// The summary says how long the run spent outside the step loop, part by part: the
// report's outside_loop_s, each key on the line, their sum first.
TEST_F(Cli, RunPrintsTheTimeOutsideTheLoop) {
  const fs::path out = dir_ / "outside";
  const Result r =
      run({"run", "inputs/bench.toml", "--set", "grid.n=8", "--steps", "2", "--no-probe", "--out", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::size_t at = r.out.find("outside the loop ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  const nlohmann::json j = read_json(out / "report.json");
  double sum = 0;
  for (const auto& [what, seconds] : j.at("outside_loop_s").items()) {
    EXPECT_NE(line.find(" " + what + " "), std::string::npos) << what << " missing from: " << line;
    sum += seconds.get<double>();
  }
  const double printed = std::stod(line.substr(std::string("outside the loop ").size()));
  EXPECT_NEAR(printed, sum, 1e-3) << line;
}

// A run too short to time a step (the warm-up and the traced steps) says its FOM was not
// measured, rather than "FOM 0", and so does its report: the rates are null (a 0 would read as
// a measured rate to a script that averages reports), with the reason beside them.
TEST_F(Cli, ShortRunSaysItsFomWasNotMeasured) {
  const fs::path out = dir_ / "short";
  const Result r = run({"run", "inputs/bench.toml", "--set", "grid.n=8", "--steps", "4", "--out", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("FOM not measured: no step was timed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FOM 0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("of the copy bandwidth"), std::string::npos) << r.out;
  const nlohmann::json j = read_json(out / "report.json");
  EXPECT_EQ(j.at("step_time_s").at("samples").get<long>(), 0);
  const nlohmann::json& fom = j.at("fom");
  EXPECT_TRUE(fom.at("cell_updates_per_s").is_null()) << fom.dump();
  EXPECT_TRUE(fom.at("fraction_of_copy_bandwidth").is_null()) << fom.dump();
  EXPECT_TRUE(fom.at("fraction_of_arithmetic_limit").is_null()) << fom.dump();
  EXPECT_NE(fom.value("not_measured", "").find("no step was timed"), std::string::npos) << fom.dump();
  EXPECT_TRUE(j.at("traffic").at("effective_bandwidth_Bps").is_null()) << j.at("traffic").dump();
  for (const char* key : {"t_step_s", "t_halo_s", "t_compute_s", "hidden_fraction"})
    EXPECT_TRUE(j.at("halo").at(key).is_null()) << key << ": " << j.at("halo").dump();
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("run")), "");
  const Result longer =
      run({"run", "inputs/bench.toml", "--set", "grid.n=8", "--steps", "6", "--no-probe", "--out", out.string()});
  ASSERT_EQ(longer.code, 0) << longer.err;
  EXPECT_NE(longer.out.find("(interior cells / median step time)"), std::string::npos) << longer.out;
}

// After each stop (here a checkpoint every 4 steps) the device was idle: the next two steps'
// times are not steady and are not samples; nor is the step a GPU's host asks past each stop
// before it learns of the stop (it does nothing). Every backend keeps the same samples: of
// 16 steps, the warm-up (1, 2), the traced step and the one after it (3, 4), and the two after
// each stop (5, 6, 9, 10, 13, 14) aside, steps 7, 8, 11, 12, 15 and 16.
TEST_F(Cli, StepsAfterAStopAreNotSamples) {
  const fs::path out = dir_ / "stops";
  const Result r = run({"run", "inputs/bench.toml", "--set", "grid.n=8", "--set", "checkpoint.every_steps=4", "--steps",
                        "16", "--no-probe", "--out", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = read_json(out / "report.json");
  ASSERT_EQ(j.at("steps").get<long>(), 16);
  EXPECT_EQ(j.at("step_time_s").at("samples").get<long>(), 6);
  const Result steady =
      run({"run", "inputs/bench.toml", "--set", "grid.n=8", "--steps", "16", "--no-probe", "--out", out.string()});
  ASSERT_EQ(steady.code, 0) << steady.err;
  EXPECT_EQ(read_json(out / "report.json").at("step_time_s").at("samples").get<long>(), 16 - 4);
}

// A step's time in the report is its phases' without the files a run writes: checkpoints
// (host time, every 4 steps here, each far longer than a step of 8^3) counted into t_compute_s
// and timers_sum_per_step_s, and a halo strategy's hidden_fraction then read 1, the exchange
// hidden behind "compute" that was the checkpoint's writing (a review, 2026-12-07).
TEST_F(Cli, AStepsTimeLeavesOutTheFilesTheRunWrites) {
  const fs::path out = dir_ / "files";
  const Result r = run({"run", "inputs/bench.toml", "--set", "grid.n=8", "--set", "checkpoint.every_steps=4", "--set",
                        "checkpoint.keep=1", "--steps", "16", "--no-probe", "--out", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = read_json(out / "report.json");
  const nlohmann::json& timers = j.at("timers");
  ASSERT_TRUE(timers.contains("checkpoint")) << timers.dump();
  const double timed_steps = j.at("timed_steps").at("count").get<double>();
  double steps_phases = 0, files = 0;
  for (const auto& [name, t] : timers.items())
    (name == "output" || name == "checkpoint" ? files : steps_phases) += t.at("total_s").get<double>();
  ASSERT_GT(files, 0);
  EXPECT_NEAR(j.at("timers_sum_per_step_s").get<double>(), steps_phases / timed_steps, 1e-12) << timers.dump();
  const nlohmann::json& halo = j.at("halo");
  EXPECT_NEAR(halo.at("t_compute_s").get<double>() + halo.at("t_halo_s").get<double>(), steps_phases / timed_steps,
              1e-12)
      << halo.dump();
}

// A memory choice that changes no step is said to change nothing (bench skips such rows),
// and the run goes on. The host memory kind: on a GPU a run's files are staged through it, so
// it is never idle there; with no GPU there is nothing to pin, and pageable is said to be idle
// (a new-user trial, 2026-12-06, found it taken without a word).
TEST_F(Cli, RunSaysWhenAMemoryChoiceHasNoEffect) {
  const Result r = run({"run", "inputs/bench.toml", "--set", "grid.n=8", "--steps", "2", "--prefetch", "off",
                        "--no-probe", "--out", (dir_ / "idle").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("halocline: note: prefetch=off has no effect"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; the run goes on\n"), std::string::npos) << r.err;
  for (const char* kind : {"pinned", "pageable"}) {
    const Result host_mem = run({"run", "inputs/bench.toml", "--set", "grid.n=8", "--steps", "2", "--halo", "none",
                                 "--host-mem", kind, "--no-probe", "--out", (dir_ / "idle").string()});
    ASSERT_EQ(host_mem.code, 0) << host_mem.err;
    const bool idle = std::string(kind) == "pageable" && !hc::runs_on_gpu(hc::default_backend());
    EXPECT_EQ(host_mem.err.find("note: host-mem=pageable has no effect") != std::string::npos, idle) << host_mem.err;
    if (!idle) EXPECT_EQ(host_mem.err.find("note:"), std::string::npos) << host_mem.err;
  }
}

// The summary's drift line says what the run's boundaries let through, from the faces of its
// active directions: Sod (1-D) between reflecting walls keeps mass and energy (its inactive y
// and z faces, outflow by default, see no flux); a 2-D periodic box conserves all five; an
// outflow face lets them through.
TEST_F(Cli, ConservationNoteReadsTheActiveFacesOnly) {
  const auto drift_line = [&](std::vector<std::string> sets) {
    std::vector<std::string> args = {
        "run", sets.front(), "--steps", "4", "--no-probe", "--out", (dir_ / "drift").string()};
    for (std::size_t i = 1; i < sets.size(); ++i) args.insert(args.end(), {"--set", sets[i]});
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    const std::size_t at = r.out.find("conservation: max relative drift");
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  const std::string walls = drift_line({"inputs/sod.toml", "boundary.x_lo=reflecting", "boundary.x_hi=reflecting"});
  EXPECT_NE(walls.find("(reflecting walls can change the momentum; mass drift "), std::string::npos) << walls;
  // ... and mass and energy are conserved between the walls: each drift is rounding's.
  for (const char* total : {"mass drift ", "energy drift "}) {
    const std::size_t at = walls.find(total);
    ASSERT_NE(at, std::string::npos) << walls;
    EXPECT_LE(std::stod(walls.substr(at + std::string(total).size())), 1e-12) << walls;
  }
  const std::string periodic = drift_line({"inputs/vortex.toml", "grid.nx=16", "grid.ny=16"});
  EXPECT_FALSE(periodic.empty());
  EXPECT_EQ(periodic.find('('), std::string::npos) << periodic;
  const std::string open = drift_line({"inputs/sod.toml"});
  EXPECT_NE(open.find("(outflow boundaries: not conserved)"), std::string::npos) << open;
}

// A restart's state is the checkpoint's: a --set of the problem's own parameters changes
// nothing, and the restart says so (the same run's checksum with and without it); a fresh run
// takes it and says nothing.
TEST_F(Cli, RestartSaysItsProblemParametersHaveNoEffect) {
  const fs::path out = dir_ / "blast";
  const std::vector<std::string> deck = {"run", "inputs/sedov.toml", "--set", "grid.n=8", "--no-probe"};
  auto with = [&](const std::vector<std::string>& more) { return run(deck, more); };
  const Result first =
      with({"--set", "checkpoint.every_steps=2", "--set", "sedov.energy=2", "--steps", "2", "--out", out.string()});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(first.err.find("note:"), std::string::npos) << first.err;
  const std::string checkpoint = (out / "checkpoint_00000002.h5").string();
  const Result plain = with({"--restart", checkpoint, "--steps", "4", "--out", (dir_ / "plain").string()});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("note:"), std::string::npos) << plain.err;
  const Result set = with({"--restart", checkpoint, "--steps", "4", "--set", "sedov.energy=5", "--set",
                           "physics.cfl=0.4", "--out", (dir_ / "set").string()});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_NE(set.err.find("halocline: note: sedov.energy has no effect on a restart: the state is the checkpoint's"),
            std::string::npos)
      << set.err;
  EXPECT_EQ(set.err.find("physics.cfl"), std::string::npos) << set.err;  // a numerics setting is taken
  EXPECT_EQ(read_json(dir_ / "set" / "report.json")["checksum"], read_json(dir_ / "plain" / "report.json")["checksum"]);
  // The key as the deck reads it (spaces dropped), each once, and an inline table's own keys.
  const Result forms = with({"--restart", checkpoint, "--steps", "4", "--set", " sedov.energy = 5", "--set",
                             "sedov.energy=6", "--set", "sedov={rho=2}", "--out", (dir_ / "forms").string()});
  ASSERT_EQ(forms.code, 0) << forms.err;
  EXPECT_NE(forms.err.find("halocline: note: sedov.energy, sedov.rho have no effect on a restart"), std::string::npos)
      << forms.err;
}

// A restart may change the numerics (physics.cfl, limiter, riemann): it names what it changed
// from the run it continues, in a note and in its report; one that changes none says nothing.
TEST_F(Cli, RestartNamesTheNumericsItChanges) {
  const fs::path out = dir_ / "numerics";
  const std::vector<std::string> deck = {"run", "inputs/sod.toml", "--set", "grid.nx=32", "--no-probe"};
  auto with = [&](const std::vector<std::string>& more) { return run(deck, more); };
  const Result first = with({"--set", "checkpoint.every_steps=3", "--steps", "3", "--out", out.string()});
  ASSERT_EQ(first.code, 0) << first.err;
  const std::string checkpoint = (out / "checkpoint_00000003.h5").string();
  const Result same = with({"--restart", checkpoint, "--steps", "5", "--out", (dir_ / "same").string()});
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.err.find("this restart changes"), std::string::npos) << same.err;
  EXPECT_EQ(read_json(dir_ / "same" / "report.json")["restarted_from"]["changed"], nlohmann::json::array());
  const Result other = with({"--restart", checkpoint, "--steps", "5", "--set", "physics.cfl=0.3", "--set",
                             "physics.riemann=rusanov", "--out", (dir_ / "other").string()});
  ASSERT_EQ(other.code, 0) << other.err;
  const std::string cfl =
      "physics.cfl (" + read_json(dir_ / "same" / "report.json")["config"]["cfl"].dump() + " -> 0.3)";
  EXPECT_NE(other.err.find("halocline: note: this restart changes " + cfl +
                           ", physics.riemann (hllc -> rusanov) from the run it continues (the report's "
                           "restarted_from.changed); the run goes on\n"),
            std::string::npos)
      << other.err;
  // A restart that is refused says only why (a backend this binary lacks, or none at all).
  const std::string missing = hc::backend_unavailable(hc::BackendKind::Hip).empty() ? "kokkos" : "hip";
  if (!hc::backend_unavailable(missing == "hip" ? hc::BackendKind::Hip : hc::BackendKind::Kokkos).empty()) {
    const Result refused = with({"--restart", checkpoint, "--steps", "5", "--set", "physics.cfl=0.3", "--backend",
                                 missing, "--out", (dir_ / "refused").string()});
    EXPECT_EQ(refused.code, 2) << refused.err;
    EXPECT_EQ(refused.err.find("note:"), std::string::npos) << refused.err;
  }
  const nlohmann::json changed = read_json(dir_ / "other" / "report.json")["restarted_from"]["changed"];
  EXPECT_EQ(changed, nlohmann::json({cfl, "physics.riemann (hllc -> rusanov)"})) << changed;
}

// grid.n on a deck that gives its sizes per direction (Sod: grid.nx = 128) changes no size:
// the run says so (bench refuses such a sweep) and goes on; on a deck sized by grid.n it says
// nothing.
TEST_F(Cli, RunSaysWhenGridNChangesNoSize) {
  const Result sod = run(
      {"run", "inputs/sod.toml", "--set", "grid.n=16", "--steps", "2", "--no-probe", "--out", (dir_ / "gn").string()});
  ASSERT_EQ(sod.code, 0) << sod.err;
  EXPECT_NE(sod.err.find("halocline: note: grid.n=16 changes no size: the deck gives grid.nx"), std::string::npos)
      << sod.err;
  EXPECT_EQ(read_json(dir_ / "gn" / "report.json")["config"]["grid"][0], 128);
  for (const char* n : {"grid.n=8", "grid.n=128"}) {  // bench.toml's own grid.n is 128
    const Result bench =
        run({"run", "inputs/bench.toml", "--set", n, "--steps", "2", "--no-probe", "--out", (dir_ / "gn8").string()});
    ASSERT_EQ(bench.code, 0) << bench.err;
    EXPECT_EQ(bench.err.find("note:"), std::string::npos) << n << ": " << bench.err;
  }
}

// A run with no step limit whose end is too many steps away (a CFL number of 1e-300, an end
// time of 1e300) would run for ever: refused in one line once the first steps know the rate.
// With a step limit it runs.
TEST_F(Cli, AnEndTooManyStepsAwayIsRefused) {
  for (const char* set : {"physics.cfl=1e-300", "time.t_end=1e300"}) {
    const Result r = run({"run", "inputs/sod.toml", "--set", set, "--no-probe", "--out", (dir_ / "far").string()});
    EXPECT_EQ(r.code, 2) << set << r.err;
    EXPECT_NE(r.err.find("steps are refused: raise physics.cfl, lower time.t_end, or set time.max_steps"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
  const Result limited = run({"run", "inputs/sod.toml", "--set", "physics.cfl=1e-300", "--steps", "5", "--no-probe",
                              "--out", (dir_ / "far").string()});
  EXPECT_EQ(limited.code, 0) << limited.err;
}

TEST_F(Cli, NotEnoughHostMemoryExitsTwo) {
  const Result r = run({"run", "inputs/bench.toml", "--set", "grid.n=8000", "--backend", "kokkos", "--kernels", "split",
                        "--out", (dir_ / "oom").string()});
  if (r.err.find("not built into this binary") != std::string::npos) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  // Six arrays (u0, u1, unew, three fluxes: the split kernels) of 5 doubles per cell, ghosts included.
  const long long cells = 8004LL * 8004 * 8004, needed = 6 * 5 * 8 * cells;
  // Host memory on a CPU execution space (the memory plan's parts); where Kokkos runs on a
  // GPU the run writes no file, so the host holds no copy and the device refuses, naming
  // its free bytes and the largest grid that fits it. The device also holds read_state's
  // slab buffer: one z-plane of the interior here (SlabPlan: a plane is over 16 MiB).
  const long long slab = 5LL * 8 * 8000 * 8000;
  if (r.err.find("of device memory") == std::string::npos) {
    // With the rate's max, a scalar (the backend's footprint: kernels/contract/footprint.hpp).
    EXPECT_NE(r.err.find(std::to_string(needed + 8) + " bytes for the solver's arrays and buffers"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("available"), std::string::npos) << r.err;
  } else {
    EXPECT_NE(r.err.find("this grid needs " + std::to_string(needed + slab + 8) + " bytes"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("free of"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the largest grid of this shape that fits the device: "), std::string::npos) << r.err;
  }
}

// `halocline bench`: the whole matrix in one process, each configuration run or listed as
// skipped with its reason, the JSON matching docs/schemas/bench.schema.json, the CSV with
// one line per configuration, speedups against the baseline.
// The speedups say the same in bench's table, bench.csv and bench.json: a bench with no sweep
// is its own baseline, named "(the deck)"; a baseline that did not run gives no speedup
// anywhere (the table and the CSV said 0 where the JSON said null); a sweep of which nothing
// ran ends with exit 1.
TEST_F(Cli, BenchSpeedupsAgreeInTheTableTheCsvAndTheJson) {
  const auto bench = [&](const std::string& out, std::vector<std::string> more) {
    std::vector<std::string> args = {"bench",  "inputs/bench.toml", "--set", "grid.n=8", "--repeat",
                                     "1",      "--steps",           "1",     "--out",    (dir_ / out).string(),
                                     "--quiet"};
    args.insert(args.end(), more.begin(), more.end());
    return run(args);
  };
  Result r = bench("alone", {});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = read_json(dir_ / "alone" / "bench.json");
  EXPECT_EQ(j["baseline"], "(the deck)");
  EXPECT_EQ(j["rows"][0]["name"], "(the deck)");
  EXPECT_EQ(j["rows"][0]["speedup"], 1.0);
  EXPECT_NE(r.out.find("baseline: (the deck)\n"), std::string::npos) << r.out;
  std::string csv = read_file(dir_ / "alone" / "bench.csv");
  EXPECT_EQ(csv.substr(csv.size() - 4), ",1,\n") << csv;

  r = bench("unrun", {"--sweep", "grid.n=100000,8"});  // the baseline, the first, cannot be allocated
  ASSERT_EQ(r.code, 0) << r.err;
  j = read_json(dir_ / "unrun" / "bench.json");
  EXPECT_TRUE(j["baseline"].is_null());
  ASSERT_TRUE(j["rows"][0].contains("skipped"));
  EXPECT_TRUE(j["rows"][1]["speedup"].is_null());
  csv = read_file(dir_ / "unrun" / "bench.csv");
  EXPECT_EQ(csv.substr(csv.size() - 3), ",,\n") << csv;  // no speedup
  EXPECT_NE(r.out.find("       -\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("baseline: grid.n=100000, which did not run: no speedups\n"), std::string::npos) << r.out;

  r = bench("none", {"--sweep", "grid.n=100000,200000"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "halocline: bench: no configuration ran: each was skipped (the reasons are in bench.json)\n");
}

// --baseline names a swept value by its text or its number (it refused physics.cfl=0.40 against
// a sweep of 0.4).
TEST(CliBenchBaseline, NamesASweptValueByItsTextOrItsNumber) {
  EXPECT_TRUE(hc::names_value("0.40", "0.4"));
  EXPECT_TRUE(hc::names_value("1e0", "1"));
  EXPECT_TRUE(hc::names_value("soa", "soa"));
  EXPECT_FALSE(hc::names_value("0.4", "0.5"));
  EXPECT_FALSE(hc::names_value("0.4x", "0.4"));
  EXPECT_FALSE(hc::names_value("nan", "NaN"));
  EXPECT_FALSE(hc::names_value("", "0"));
}

TEST_F(Cli, BenchBaselineNamesASweptNumberInAnySpelling) {
  const Result r =
      run({"bench", "inputs/bench.toml", "--set", "grid.n=8", "--sweep", "physics.cfl=0.2,0.4", "--baseline",
           "physics.cfl=0.40", "--repeat", "1", "--steps", "1", "--out", (dir_ / "cfl").string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = read_json(dir_ / "cfl" / "bench.json");
  EXPECT_EQ(j["baseline"], "physics.cfl=0.4");
  EXPECT_EQ(j["rows"][1]["speedup"], 1.0);
}

// A bench into a directory where an earlier, larger sweep left more run folders says which
// folders bench.json does not list (it leaves them: they are no file this bench names).
TEST_F(Cli, BenchNamesTheRunFoldersOfAnEarlierLargerSweep) {
  const fs::path out = dir_ / "bench";
  const auto bench = [&](std::vector<std::string> sweep) {
    std::vector<std::string> args = {"bench",  "inputs/bench.toml", "--set", "grid.n=8", "--repeat",
                                     "1",      "--steps",           "1",     "--out",    out.string(),
                                     "--quiet"};
    args.insert(args.end(), sweep.begin(), sweep.end());
    return run(args);
  };
  Result r = bench({"--sweep", "layout=aos,soa,aosoa"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  r = bench({"--sweep", "layout=aos,soa"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "halocline: note: " + out.string() +
                       "/runs/2 is from an earlier bench in this directory: this sweep has 2 configurations, and "
                       "bench.json lists only its own\n");
  r = bench({});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("/runs/1 to 2 (2 folders) are from an earlier bench in this directory: this sweep has 1 "
                       "configuration,"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_directory(out / "runs" / "2"));  // left as it was
  EXPECT_EQ(read_json(out / "bench.json")["rows"].size(), 1u);
}

// A speedup is a ratio of rates: across grid sizes a ratio of step times would call the larger
// grid slower however many more cells a second it updates.
TEST_F(Cli, BenchSpeedupComparesRatesAcrossGridSizes) {
  const fs::path out = dir_ / "sizes";
  const Result r = run({"bench", "inputs/bench.toml", "--sweep", "grid.n=8,16", "--repeat", "3", "--steps", "2",
                        "--out", out.string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = read_json(out / "bench.json");
  ASSERT_EQ(j["rows"].size(), 2u);
  const nlohmann::json &small = j["rows"][0], &large = j["rows"][1];
  EXPECT_EQ(small["speedup"], 1.0);
  EXPECT_DOUBLE_EQ(large["speedup"].get<double>(),
                   large["fom_cell_updates_per_s"].get<double>() / small["fom_cell_updates_per_s"].get<double>());
  EXPECT_NE(large["speedup"].get<double>(),
            small["step_s"]["median"].get<double>() / large["step_s"]["median"].get<double>());
}

TEST_F(Cli, BenchSweepRunsTheMatrixAndListsSkippedConfigurations) {
  const fs::path out = dir_ / "bench";
  const Result r = run({"bench", "inputs/bench.toml", "--set", "grid.n=12", "--sweep", "layout=aos,soa", "--sweep",
                        "owner=device,host", "--sweep", "physics.limiter=minmod,mc", "--repeat", "3", "--steps", "5",
                        "--baseline", "layout=soa,physics.limiter=mc", "--out", out.string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const nlohmann::json j = read_json(out / "bench.json");
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("bench")), "");
  ASSERT_EQ(j["rows"].size(), 8u);
  EXPECT_EQ(j["configurations"], 8);
  EXPECT_EQ(j["complete"], true);
  int ran = 0, skipped = 0;
  for (std::size_t index = 0; index < j["rows"].size(); ++index) {
    const nlohmann::json& row = j["rows"][index];
    const bool cpu_only = cfg_backend_default() == "kokkos";
    if (row.contains("skipped")) {
      ++skipped;
      EXPECT_FALSE(row["skipped"].get<std::string>().empty());
      if (cpu_only) EXPECT_EQ(row["values"]["owner"], "host") << row.dump();
      continue;
    }
    ++ran;
    const auto& t = row["step_s"];
    EXPECT_EQ(t["repetitions"].size(), 3u);  // blocks of 5 steps of one run
    EXPECT_LE(t["min"].get<double>(), t["median"].get<double>());
    EXPECT_LE(t["median"].get<double>(), t["max"].get<double>());
    EXPECT_NEAR(row["speedup"].get<double>(),
                j["rows"][5]["step_s"]["median"].get<double>() / t["median"].get<double>(), 1e-12);
    // Every row carries the probe, as a run's report does, and holds its own FOM and bandwidth
    // against the probe's copy bandwidth and the report's arithmetic limit (the report's own
    // fractions hold the median of all its steps, not of the repetitions' medians).
    const double fom = row["fom_cell_updates_per_s"].get<double>();
    const nlohmann::json report = read_json(out / "runs" / std::to_string(index) / "report.json");
    const double copy = report["probe"]["copy_Bps"].get<double>() * report["probe"]["devices_counted"].get<int>();
    EXPECT_GT(row["fraction_of_copy_bandwidth"].get<double>(), 0.0) << row.dump();
    EXPECT_DOUBLE_EQ(row["fraction_of_copy_bandwidth"].get<double>(),
                     row["effective_bandwidth_Bps"].get<double>() / copy);
    EXPECT_DOUBLE_EQ(row["effective_bandwidth_Bps"].get<double>(),
                     report["traffic"]["bytes_per_step"].get<double>() / t["median"].get<double>());
    EXPECT_GT(row["fraction_of_arithmetic_limit"].get<double>(), 0.0) << row.dump();
    EXPECT_DOUBLE_EQ(row["fraction_of_arithmetic_limit"].get<double>(),
                     fom / report["arithmetic"]["limit_cell_updates_per_s"].get<double>());
  }
  EXPECT_EQ(ran + skipped, 8);
  EXPECT_GE(ran, 4);  // owner=device runs on every backend
  EXPECT_EQ(j["baseline"], "layout=soa owner=device physics.limiter=mc");
  EXPECT_EQ(j["rows"][5]["name"], j["baseline"]);
  // The layouts agree bit for bit (same limiter, same owner).
  EXPECT_EQ(j["rows"][0]["checksum"], j["rows"][4]["checksum"]);
  EXPECT_NE(j["rows"][0]["checksum"], j["rows"][1]["checksum"]);  // another limiter
  // One CSV line per configuration after the header, the skipped ones with their reason.
  const std::string csv = read_file(out / "bench.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
  EXPECT_NE(csv.find("layout,owner,physics.limiter,status,"), std::string::npos) << csv;
  EXPECT_EQ(static_cast<int>(csv.find(",skipped,") != std::string::npos), static_cast<int>(skipped > 0));
  // One run per configuration: its report has every step (4 untimed, then 3 x 5).
  const nlohmann::json report = read_json(out / "runs" / "0" / "report.json");
  EXPECT_EQ(report["steps"], 19) << report.dump();
  // The probe was measured once, into the bench's directory, and read back by the later runs.
  EXPECT_EQ(read_json(out / "runs" / "4" / "report.json")["probe"]["source"].get<std::string>().find(out.string()), 0u);
  EXPECT_NE(r.out.find("speedup"), std::string::npos) << r.out;
}

// Choices that change no step are listed as skipped with the reason, not run again: the
// host memory kind without host owner or exchange, prefetching without managed memory. A
// deck that ends before the repetitions are done is named, not measured short.
// The bench.json that a stopped sweep leaves (it is rewritten after each configuration) says
// that it holds only some of the sweep's configurations.
TEST(CliBenchJson, AStoppedSweepSaysItIsIncomplete) {
  hc::BenchResult r;
  r.options.deck = "inputs/bench.toml";
  r.options.sweeps = {hc::parse_sweep("layout=aos,soa,aosoa")};
  hc::BenchRow row;
  row.name = "layout=aos";
  row.values = {{"layout", "aos"}};
  row.skipped = "not run here";
  r.rows.push_back(row);
  EXPECT_EQ(hc::bench_json(r)["configurations"], 3);
  EXPECT_EQ(hc::bench_json(r)["complete"], false);
  r.rows.push_back(row);
  r.rows.push_back(row);
  EXPECT_EQ(hc::bench_json(r)["complete"], true);
}

TEST_F(Cli, BenchSkipsChoicesThatChangeNoStep) {
  const fs::path out = dir_ / "bench_same";
  const Result r = run({"bench", "inputs/bench.toml", "--set", "grid.n=8", "--sweep", "halo=none,sync", "--sweep",
                        "host-mem=pinned,pageable", "--sweep", "prefetch=on,off", "--repeat", "2", "--steps", "2",
                        "--out", out.string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = read_json(out / "bench.json");
  ASSERT_EQ(j["rows"].size(), 8u);
  for (const auto& row : j["rows"]) {
    const auto& v = row["values"];
    const std::string why = row.value("skipped", "");
    if (v["halo"] == "none" && v["host-mem"] == "pageable")
      EXPECT_NE(why.find("host-mem=pageable has no effect with owner=device and halo=none"), std::string::npos)
          << row.dump();
    else if (v["prefetch"] == "off")
      EXPECT_NE(why.find("prefetch=off has no effect with owner=device"), std::string::npos) << row.dump();
    else if (v["halo"] == "none")
      EXPECT_EQ(why, "") << row.dump();  // the default choices run on every backend
  }

  const Result short_deck =
      run({"bench", "inputs/bench.toml", "--set", "grid.n=8", "--set", "time.t_end=1e-3", "--sweep", "layout=soa",
           "--repeat", "2", "--steps", "3", "--out", (dir_ / "bench_short").string(), "--quiet"});
  EXPECT_EQ(short_deck.code, 1) << short_deck.err;  // its one configuration did not run
  const nlohmann::json k = read_json(dir_ / "bench_short" / "bench.json");
  EXPECT_NE(k["rows"][0].value("skipped", "").find("raise time.t_end"), std::string::npos) << k.dump();
}

// A fused run names how its backend ran the stage (the report's config.fused_shape, which the
// bench rows repeat, and a line of the printed summary); a split run names none. On the host
// (Kokkos Serial or OpenMP) that is the host's tile, its 256 threads run in turn by one.
TEST_F(Cli, FusedRunsNameTheShapeTheyRanOn) {
  const fs::path out = dir_ / "bench_shape";
  const Result r = run({"bench", "inputs/bench.toml", "--set", "grid.n=12", "--sweep", "kernels=split,fused", "--sweep",
                        "precision=fp64,fp32", "--repeat", "1", "--steps", "2", "--out", out.string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = read_json(out / "bench.json");
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("bench")), "");
  ASSERT_EQ(j["rows"].size(), 4u);
  int fused = 0;
  std::string fp64_shape;
  for (std::size_t i = 0; i < j["rows"].size(); ++i) {
    const auto& row = j["rows"][i];
    ASSERT_TRUE(row.contains("checksum")) << row.dump();
    const nlohmann::json report = read_json(out / "runs" / std::to_string(i) / "report.json");
    EXPECT_EQ(hc::test::schema_violation(report, hc::test::load_schema("run")), "");
    if (row["values"]["kernels"] == "split") {
      EXPECT_FALSE(row.contains("fused_shape")) << row.dump();
      EXPECT_FALSE(report["config"].contains("fused_shape")) << report["config"].dump();
      continue;
    }
    ++fused;
    ASSERT_TRUE(row.contains("fused_shape")) << row.dump();
    EXPECT_EQ(row["fused_shape"], report["config"]["fused_shape"]);
    const std::string shape = row["fused_shape"].get<std::string>();
    if (row["values"]["precision"] == "fp64") fp64_shape = shape;
    if (report["device"]["kind"] == "cpu") {
      const std::string host =
          "28 x 8 columns, 256 threads a team (run in turn by one host thread), column states in a local array";
      EXPECT_EQ(shape, row["values"]["precision"] == "fp64" ? host + ", lookahead read with the old values"
                                                            : host +
                                                                  ", x and y faces in bodies of their own, "
                                                                  "lists in 16-byte chunks");
    } else {
      EXPECT_TRUE(std::regex_match(
          shape, std::regex("[0-9]+ x [0-9]+ columns, [0-9]+ threads a (block|team)(, [0-9]+ "
                            "(block|team)s? per multiprocessor)?, column states in (shared "
                            "memory|registers|the team's scratch)(, lookahead read with the "
                            "old values)?(, x and y faces in bodies of their own)?(, lists in 16-byte chunks)?")))
          << shape;
    }
  }
  EXPECT_EQ(fused, 2);
  const Result printed = run({"run", "inputs/bench.toml", "--set", "grid.n=12", "--kernels", "fused", "--steps", "2",
                              "--no-probe", "--out", (dir_ / "fused_run").string()});
  ASSERT_EQ(printed.code, 0) << printed.err;
  EXPECT_NE(printed.out.find("\nfused stage: " + fp64_shape + "\n"), std::string::npos) << printed.out;
}

// The words of a fused shape (kernels/fused_tile.hpp), as a GPU backend gives them.
TEST(CliFusedShape, SaysTileThreadsAndWhereTheStatesLive) {
  EXPECT_EQ(hc::describe_fused_shape(20, 8, 256, 3, "block", "shared memory", false),
            "20 x 8 columns, 256 threads a block, 3 blocks per multiprocessor, column states in shared memory");
  EXPECT_EQ(hc::describe_fused_shape(16, 4, 128, 1, "team", "the team's scratch", true),
            "16 x 4 columns, 128 threads a team, 1 team per multiprocessor, column states in the team's scratch, "
            "lookahead read with the old values");
  EXPECT_EQ(hc::describe_fused_shape(28, 4, 128, 0, "team", "registers", false),
            "28 x 4 columns, 128 threads a team, column states in registers");
  EXPECT_EQ(hc::describe_fused_shape(27, 8, 256, 4, "block", "registers", true, true),
            "27 x 8 columns, 256 threads a block, 4 blocks per multiprocessor, column states in registers, lookahead "
            "read with the old values, x and y faces in bodies of their own");
  EXPECT_EQ(hc::describe_fused_shape(27, 8, 256, 4, "block", "registers", true, true, true),
            "27 x 8 columns, 256 threads a block, 4 blocks per multiprocessor, column states in registers, lookahead "
            "read with the old values, x and y faces in bodies of their own, lists in 16-byte chunks");
}

// A configuration that fails while it runs is listed as failed with the error; the sweep goes
// on with the others, writes everything, and exits 1. Here a numerical failure at step 1: in
// fp32 a left state of density 1e-12 and pressure 1e12 (inside the deck's rules; a sound speed
// of 1.2e12) against Sod's right state breaks the cell beside the interface. (A deck the rules
// refuse, or a state that breaks before step 1, is bad input: a skipped row, not a failed one.)
TEST_F(Cli, BenchListsAFailedConfigurationAndGoesOn) {
  const fs::path out = dir_ / "bench_fail";
  const Result r =
      run({"bench", "inputs/sod.toml", "--set", "run.precision=fp32", "--set", "riemann.left.p=1e12", "--sweep",
           "riemann.left.rho=1,1e-12,0.5", "--repeat", "2", "--steps", "2", "--out", out.string(), "--quiet"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("1 configuration(s) failed"), std::string::npos) << r.err;
  const nlohmann::json j = read_json(out / "bench.json");
  EXPECT_EQ(hc::test::schema_violation(j, hc::test::load_schema("bench")), "");
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_TRUE(j["rows"][0].contains("step_s")) << j["rows"][0].dump();
  EXPECT_FALSE(j["rows"][1].contains("step_s"));
  EXPECT_NE(j["rows"][1].value("failed", "").find("no valid time step"), std::string::npos) << j["rows"][1].dump();
  EXPECT_TRUE(j["rows"][2].contains("step_s")) << "the sweep went on";
  EXPECT_NE(read_file(out / "bench.csv").find("1e-12,failed,"), std::string::npos) << read_file(out / "bench.csv");
  EXPECT_NE(r.out.find("FAILED: "), std::string::npos) << r.out;
}

TEST_F(Cli, BenchRefusesBadSweepsBeforeAnyRun) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--sweep", "layout=aso"}, "aso"},
      {{"--sweep", "layout"}, "key=value1,value2"},
      {{"--sweep", "layout=aos,,soa"}, "empty value"},
      {{"--sweep", "grid.bogus=1,2"}, "'grid.bogus'"},
      {{"--sweep", "layout=aos", "--sweep", "layout=soa"}, "given twice"},
      {{"--sweep", "layout=aos", "--baseline", "layout=soa"}, "not one of the swept values"},
      {{"--sweep", "layout=aos", "--baseline", "precision=fp32"}, "precision is not swept"},
      {{"--sweep", "kokkos-tile=auto,64x32x1"}, "at most 1024 cells"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {"bench", "inputs/bench.toml", "--set", "grid.n=8", "--out", (dir_ / "b").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const Result r = run(argv);
    EXPECT_EQ(r.code, 2) << args[1] << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "b" / "bench.json"));
  }
}

}  // namespace

namespace {

// bench's table gives rates and bandwidths in the unit the largest needs: a CPU's rows in
// Mcell/s and GB/s (they read 0.001 Gcell/s and 0.000 TB/s before), a GPU's in G and T.
std::string bench_table(double cells, double step_s, double bytes_per_s) {
  hc::BenchResult r;
  r.options.repeat = 3, r.options.steps = 12;
  hc::BenchRow row;
  row.name = "layout=soa";
  row.cells = cells, row.min_s = row.median_s = row.max_s = step_s, row.effective_Bps = bytes_per_s;
  r.rows.push_back(row);
  std::ostringstream os;
  hc::print_bench(os, r);
  return os.str();
}

TEST(CliBenchTable, ScalesItsUnits) {
  const std::string cpu = bench_table(32768, 0.02, 2.4e9);  // 1.64 Mcell/s, 2.4 GB/s
  EXPECT_NE(cpu.find("Mcell/s     GB/s"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("      1.638    2.400"), std::string::npos) << cpu;
  const std::string gpu = bench_table(16777216, 0.00693, 2.36e12);  // 2.42 Gcell/s, 2.36 TB/s
  EXPECT_NE(gpu.find("Gcell/s     TB/s"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("      2.421    2.360"), std::string::npos) << gpu;
}

}  // namespace
