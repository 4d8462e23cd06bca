// Reading a TOML deck (plus --set overrides) into a validated Config.
//
// Every bad input ends as a DeckError whose what() is one line that names the key (and
// the deck line, where there is one); the command line turns it into exit code 2.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/config.hpp"

namespace halocline {

struct DeckError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The largest deck file read (docs/decks.md): beyond it a file is refused before parsing.
constexpr std::size_t kMaxDeckBytes = std::size_t(16) << 20;

// Reads the deck at `path`, applies each "key=value" override (dotted key, TOML value;
// bare words are taken as strings), validates, and returns the Config.
Config load_deck(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from text already in memory; `source` names it in messages.
Config parse_deck(const std::string& text, const std::string& source, const std::vector<std::string>& overrides = {});

// Whether a deck key (`section.name`, or a whole section, as --set writes them) is one of a
// problem's own parameters (the sections named after the problems: riemann, isentropic_vortex,
// sedov, ...), which only make the initial state: a restart's state is the checkpoint's instead.
bool is_problem_parameter(const std::string& key);

// The key of one "--set key=value" as the deck reads it (spaces around it dropped).
std::string override_key(const std::string& set);
// The keys of the overrides `sets` that `pick` selects, each once in the order given, as
// "KEY has" or "KEY1, KEY2 have" (a note on keys without effect); empty where none is. An
// inline table's keys are its own (--set 'time={max_steps=5}' sets time.max_steps), in the
// order of their names (TOML's tables keep no order).
std::string overridden_keys_that(const std::vector<std::string>& sets, bool (*pick)(const std::string& key));

// Checks the cross-key rules (sizes, positivity, periodic pairs, ...); load_deck and
// parse_deck call it, and the command line calls it again after its own options.
void validate(const Config& config);

// Names used in decks and on the command line; each throws DeckError naming `key` for an
// unknown word.
LayoutKind parse_layout(const std::string& word, const std::string& key = "layout");
Precision parse_precision(const std::string& word, const std::string& key = "precision");
BackendKind parse_backend(const std::string& word, const std::string& key = "backend");
Owner parse_owner(const std::string& word, const std::string& key = "owner");
HostMemory parse_host_memory(const std::string& word, const std::string& key = "host_mem");
HaloStrategy parse_halo(const std::string& word, const std::string& key = "halo");
KernelStrategy parse_kernels(const std::string& word, const std::string& key = "kernels");

}  // namespace halocline
