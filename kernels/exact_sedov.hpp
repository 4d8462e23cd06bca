// The Sedov-Taylor point blast (Sedov 1959; Taylor 1950): a spherical shock in a gas at rest
// of density rho0, after an energy E is released at a point, lies at
//   R(t) = xi0 (E t^2 / rho0)^(1/5),
// where xi0 depends only on the gas's gamma. Host-only; used by `halocline verify`.
#pragma once

namespace halocline {

// The gammas sedov_taylor_constant answers for: where its integration is checked (the .cpp).
constexpr double kSedovGammaLow = 1.01, kSedovGammaHigh = 7.0;

// xi0 for an ideal gas of ratio of specific heats `gamma`, from the self-similar solution's
// energy integral: 1.0328 for gamma 1.4, 1.1517 for gamma 5/3 (Kamm and Timmes 2007, "On
// Efficient Generation of Numerically Robust Sedov Solutions", LA-UR-07-2849). Throws
// std::invalid_argument for gamma outside [kSedovGammaLow, kSedovGammaHigh].
double sedov_taylor_constant(double gamma);

}  // namespace halocline
