// The command line read and agreed over the ranks, and the validators the commands' options share.
#include "app/commands.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/comm.hpp"
#include "app/failures.hpp"

namespace halocline::cli {

namespace {

// Every rank's command-line outcome (`early`: -1 go on, else the exit code it ended with;
// `refused`: why the parse refused it) and command agreed: -1 when all go on with the same
// command, else the exit code every rank ends with. Rank 0 says a refusal once (naming the
// first refused rank where not every rank was) and a different command, naming the rank.
int agree_on_command(int early, const std::string& command, const std::optional<hc::ExitStatus>& refused) {
  try {
    // A command line refused on every rank is said once; on some ranks only, naming the first.
    hc::agreed([&] {
      if (refused) throw hc::AgreedExit(*refused);
    });
    // (Help and the version end with 0 where they were asked for: a rank without them then
    // differs in its command, said below.)
    hc::agreed([&] { hc::check_same_lines("command line", "command = " + command + "\n"); });
  } catch (const hc::AgreedExit& e) {
    if (hc::world_rank() == 0) hc::print_failure(e.status);
    return e.status.code;
  }
  return early;
}

// CLI11's "The following arguments were not expected: 32 --szie" (its list reversed, an
// unknown option's value among it) as a user reads it: the unknown option first, as typed;
// with no option among them, the words the parse left (`extras`: CLI11's own list, in the order
// typed), as they are ("run a.toml b.toml grid.n=256").
std::string extras_text(const std::vector<std::string>& extras, int argc, char** argv) {
  std::set<std::string> names;  // each cut at '=' (--name=value)
  for (const std::string& word : extras) names.insert(word.substr(0, word.find('=')));
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const std::string name = word.substr(0, word.find('='));
    if (name.size() > 1 && name[0] == '-' && names.count(name))
      return "unknown option '" + name + "' (--help lists the options)";
  }
  std::string listed;
  for (const std::string& word : extras) listed += (listed.empty() ? "'" : ", '") + word + "'";
  return std::string("unexpected argument") + (extras.size() == 1 ? " " : "s ") + listed +
         " (--help says what the command takes)";
}

// The commands, as a refusal lists them.
constexpr const char* kCommands = "the commands: run, verify, bench, benchmark, compare, probe, info";

// CLI11's own wording of a mistake (ArgumentMismatch, ConversionError, an unexpected word that
// is no option) said as the project's other refusals are: the option first, then the rule.
// Forms not recognised keep CLI11's words.
std::string plain_text(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const std::string message = e.what();
  // "A subcommand is required": a line with no command (`halocline` alone, or options only).
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && message == "A subcommand is required")
    return std::string("no command given (") + kCommands + "; --help says what each does)";
  std::smatch m;
  // "deck is required", "files is required": a command without the input it reads.
  static const std::regex required(R"(^(\w+) is required$)");
  if (std::regex_match(message, m, required)) {
    std::string command;
    for (const CLI::App* sub : app.get_subcommands()) command = sub->get_name() + ": ";
    const std::string input = m[1].str();
    const std::string what = input == "deck" ? "a deck (a TOML file; inputs/ has examples)"
                             : input == "files"
                                 ? "the benchmark results to compare (benchmark.json files or their --out directories)"
                                 : "its " + input + " (--help says what it takes)";
    return command + "needs " + what;
  }
  // "--steps: At Most 1 required but received 2": an option given twice.
  static const std::regex at_most(R"(^(\S+): At Most 1 required but received (\d+)$)");
  if (std::regex_match(message, m, at_most)) return m[1].str() + ": given " + m[2].str() + " times; give it once";
  // "--steps: 1 required INT:>= 1 missing": an option at the end of the line with no value.
  static const std::regex missing(R"(^(\S+): \d+ required .* missing$)");
  if (std::regex_match(message, m, missing)) return m[1].str() + ": needs a value (--help says what it takes)";
  // "Could not convert: --quiet = abc": a value its type cannot hold (a flag given a word).
  static const std::regex convert(R"(^Could not convert: (\S+) = (.*)$)");
  if (std::regex_match(message, m, convert))
    return m[1].str() + ": cannot read '" + m[2].str() + "' (--help says what it takes)";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const std::vector<std::string> extras = app.remaining(true);
    if (!extras.empty()) return extras_text(extras, argc, argv);
  }
  return message;
}

// Help or the version, printed by rank 0 alone (every rank read the same line); the exit code.
int said_once(const CLI::App& app, const CLI::Error& e) {
  return hc::world_rank() == 0 ? app.exit(e) : e.get_exit_code();
}

}  // namespace

// CLI11's own range checks print their bounds in full (a 309-digit number for "positive"):
// these say the rule in the option's own terms.
namespace {

// A whole number in [lo, hi], shown as `rule` in the help and in a refusal; where the rule
// does not show hi (`shows_hi` false: a bound only the option's type sets), a number above it
// is said with it.
CLI::Validator integer_in(long lo, long hi, const std::string& rule, bool shows_hi) {
  return CLI::Validator(
      [lo, hi, rule, shows_hi](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text.c_str(), &end, 10);  // beyond long long: its bound, ERANGE
        if (text.empty() || *end != '\0') return "must be an integer " + rule + " (got '" + text + "')";
        const bool above = value > hi || (errno == ERANGE && value > 0);
        if (above && !shows_hi) return "must be at most " + std::to_string(hi) + " (got " + text + ")";
        if (above || value < lo || errno == ERANGE) return "must be " + rule + " (got " + text + ")";
        return "";
      },
      rule);
}

}  // namespace

CLI::Validator in_range(long lo, long hi) {
  const bool open = hi == std::numeric_limits<long>::max();
  return integer_in(
      lo, hi, open ? ">= " + std::to_string(lo) : "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", !open);
}

CLI::Validator at_least(long lo, long hi) { return integer_in(lo, hi, ">= " + std::to_string(lo), false); }

// The same for a real number, finite: CLI11's Range lets "nan" through (every comparison with
// a NaN is false), and a NaN minimum time or spread bound then passes every rule it sets.
CLI::Validator number_in_range(double lo, double hi) {
  const auto text_of = [](double x) {
    std::ostringstream os;
    os << x;
    return os.str();
  };
  const std::string rule = "in [" + text_of(lo) + ", " + text_of(hi) + "]";
  return CLI::Validator(
      [lo, hi, rule](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);  // out of range: inf, said not finite
        if (text.empty() || *end != '\0' || !std::isfinite(value))
          return "must be a number " + rule + " (got '" + text + "')";
        if (!(value >= lo && value <= hi)) return "must be " + rule + " (got " + text + ")";
        return "";
      },
      rule);
}

CLI::Validator non_empty() {
  return CLI::Validator([](std::string& text) { return text.empty() ? std::string("must not be empty") : ""; }, "PATH");
}

// Parses the command line: -1 where the command goes on, else the exit code every rank of the
// job agreed on. It ends here for --help, --version or a mistake in it (exit code 2, said by
// the rank that made it). Every rank agrees on that, and on the command, before anything else:
// one rank's --help, parse error or other subcommand must not leave the others waiting in MPI.
int parse_command_line(CLI::App& app, int argc, char** argv) {
  int early = -1;
  std::string command = "error";
  std::optional<hc::ExitStatus> refused;  // said once the ranks agree (agree_on_command)
  try {
    // A first word that is no option and no command: CLI11 would only say that a command is
    // required.
    if (argc > 1 && argv[1][0] != '-' &&
        app.get_subcommands([&](CLI::App* s) { return s->get_name() == argv[1]; }).empty())
      throw CLI::ParseError(std::string("unknown command '") + argv[1] + "' (" + kCommands + ")",
                            CLI::ExitCodes::ExtrasError);
    app.parse(argc, argv);
    for (CLI::App* sub : app.get_subcommands()) command = sub->get_name();
  } catch (const CLI::CallForHelp& e) {
    early = said_once(app, e), command = "help";
  } catch (const CLI::CallForAllHelp& e) {
    early = said_once(app, e), command = "help";
  } catch (const CLI::CallForVersion& e) {
    early = said_once(app, e), command = "version";
  } catch (const CLI::ParseError& e) {
    refused = hc::ExitStatus{2, "error: ", plain_text(app, e, argc, argv), false, hc::world_rank()};
    early = 2;
  }
  return agree_on_command(early, command, refused);
}

}  // namespace halocline::cli
