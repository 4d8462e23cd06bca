// The cross-key rules of a deck (sizes, positivity, periodic pairs, problem needs), shared
// by the reader (io/deck.cpp), which knows the line of every key, and the public validate().
#pragma once

#include <functional>
#include <initializer_list>
#include <string>

#include "io/config.hpp"

namespace halocline::deck_detail {

inline const char* const kSizeKeys[3] = {"grid.nx", "grid.ny", "grid.nz"};
inline const char* const kLoKeys[3] = {"grid.xmin", "grid.ymin", "grid.zmin"};
inline const char* const kHiKeys[3] = {"grid.xmax", "grid.ymax", "grid.zmax"};
inline const char* const kFaceKeys[3][2] = {
    {"boundary.x_lo", "boundary.x_hi"}, {"boundary.y_lo", "boundary.y_hi"}, {"boundary.z_lo", "boundary.z_hi"}};

// The most snapshots a run may write, and the most checkpoints it may keep
// (docs/reliability.md).
constexpr int kMaxOutputFiles = 10000;

// The largest ratio of specific heats a deck may set (an ideal gas has at most 3).
constexpr int kMaxGamma = 10;

// The shortest decimal that reads back as v.
std::string num(double v);

// `where` gives the location of the first of the keys that the deck names (the key itself,
// then the keys it may have come from), or just the source.
using Where = std::function<std::string(std::initializer_list<const char*>)>;

// Throws DeckError, one line, for the first rule `c` breaks.
void validate_rules(const Config& c, const Where& where);

}  // namespace halocline::deck_detail
