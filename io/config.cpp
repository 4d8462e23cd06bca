// Names of the Config enums, as written in decks, reports and snapshots. io/deck.cpp
// parses the same words, so a name printed here can always be read back. The Kokkos tile is
// a command-line choice only: its parser is here, beside its name.
#include "io/config.hpp"

#include <sstream>

#include "io/deck.hpp"

namespace halocline {

std::array<int, 3> parse_kokkos_tile(const std::string& text, const std::string& option) {
  if (text == "auto") return {0, 0, 0};
  if (text == "kokkos") return {-1, -1, -1};
  if (text == "flat") return {-2, -2, -2};
  std::array<int, 3> tile{};
  std::istringstream in(text);
  char x1 = 0, x2 = 0;
  std::string rest;
  const bool read =
      static_cast<bool>(in >> tile[0] >> x1 >> tile[1] >> x2 >> tile[2]) && x1 == 'x' && x2 == 'x' && !(in >> rest);
  const long cells = static_cast<long>(tile[0]) * tile[1] * tile[2];
  if (!read || tile[0] < 1 || tile[1] < 1 || tile[2] < 1 || cells > 1024)
    throw DeckError(option + " '" + text + "': expected auto, kokkos, flat or AxBxC (positive, at most 1024 cells, " +
                    "e.g. 64x4x1)");
  return tile;
}

std::string kokkos_tile_name(const std::array<int, 3>& tile) {
  if (tile[0] == 0) return "auto";
  if (tile[0] == -2) return "flat";
  if (tile[0] < 0) return "kokkos";
  return std::to_string(tile[0]) + "x" + std::to_string(tile[1]) + "x" + std::to_string(tile[2]);
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::FP64: return "fp64";
    case Precision::FP32: return "fp32";
  }
  return "?";
}

const char* backend_name(BackendKind b) {
  switch (b) {
    case BackendKind::Kokkos: return "kokkos";
    case BackendKind::Hip: return "hip";
  }
  return "?";
}

const char* boundary_name(Boundary b) {
  switch (b) {
    case Boundary::Periodic: return "periodic";
    case Boundary::Outflow: return "outflow";
    case Boundary::Reflecting: return "reflecting";
    case Boundary::Exchanged: return "exchanged";
  }
  return "?";
}

const char* problem_name(ProblemKind p) {
  switch (p) {
    case ProblemKind::Riemann: return "riemann";
    case ProblemKind::IsentropicVortex: return "isentropic_vortex";
    case ProblemKind::Sedov: return "sedov";
    case ProblemKind::KelvinHelmholtz: return "kelvin_helmholtz";
    case ProblemKind::Uniform: return "uniform";
  }
  return "?";
}

const char* limiter_name(Limiter l) {
  switch (l) {
    case Limiter::Minmod: return "minmod";
    case Limiter::VanLeer: return "vanleer";
    case Limiter::MC: return "mc";
  }
  return "?";
}

const char* riemann_name(RiemannSolver r) {
  switch (r) {
    case RiemannSolver::HLLC: return "hllc";
    case RiemannSolver::Rusanov: return "rusanov";
  }
  return "?";
}

}  // namespace halocline
