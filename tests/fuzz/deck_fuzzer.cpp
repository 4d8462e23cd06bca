// libFuzzer target: the deck reader and the --set overrides (io/deck.cpp).
//
// The input is a deck's text, optionally followed by a line "---" and one --set override
// per line. Bad input must end in a DeckError (exit code 2 in the program); anything else
// escaping, a crash, or a sanitizer report is a bug. Built and run by `make fuzz` (clang,
// -fsanitize=fuzzer,address,undefined); a crash it finds is saved and becomes a file of
// tests/fuzz/regressions/, which the test suite reads back (DeckFuzzRegressions in
// tests/test_deck.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/deck.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::string deck = input;
  std::vector<std::string> overrides;
  const std::size_t split = input.find("\n---\n");
  if (split != std::string::npos) {
    deck = input.substr(0, split);
    std::size_t start = split + 5;
    while (start <= input.size()) {
      const std::size_t end = input.find('\n', start);
      overrides.push_back(input.substr(start, end == std::string::npos ? std::string::npos : end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  try {
    halocline::Config c = halocline::parse_deck(deck, "fuzz.toml", overrides);
    halocline::validate(c);
  } catch (const halocline::DeckError&) {
    // the expected answer to bad input
  }
  return 0;
}
