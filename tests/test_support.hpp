// Helpers shared by the test files: the decks in inputs/ and short runs of them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "app/config.hpp"
#include "io/deck.hpp"

namespace halocline::test {

inline std::vector<std::string> input_decks() {
  namespace fs = std::filesystem;
  std::vector<std::string> decks;
  for (const auto& e : fs::directory_iterator(fs::path(HALOCLINE_SOURCE_DIR) / "inputs"))
    if (e.path().extension() == ".toml") decks.push_back(e.path().string());
  std::sort(decks.begin(), decks.end());
  return decks;
}

// A short run of a deck: 4 steps, large 3-D decks shrunk to 24^3.
inline Config short_run(const std::string& deck) {
  Config c = load_deck(deck);
  if (c.n[0] * static_cast<long>(c.n[1]) * c.n[2] > 100000) c = load_deck(deck, {"grid.n=24"});
  c.max_steps = 4;
  return c;
}

inline std::string deck_name(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

}  // namespace halocline::test
