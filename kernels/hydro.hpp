// The physics of Halocline, written once: ideal-gas equation of state, MUSCL
// reconstruction with slope limiters, HLLC and Rusanov fluxes, and the signal speed for
// the CFL condition. Every function is a host/device inline function on plain values, so
// every backend (Kokkos, native HIP) calls exactly the same arithmetic; that is
// what makes results bitwise identical across layouts and backends.
//
// Fluxes are computed in a frame rotated so that velocity component 0 is normal to the
// face. The rotation is a relabelling only (no arithmetic), so a problem run along x, y
// or z performs the same floating-point operations and gives identical results.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/grid.hpp"
#include "base/portability.hpp"
#include "kernels/fast_roots.hpp"

namespace halocline {

enum class Limiter : int { Minmod = 0, VanLeer = 1, MC = 2 };
enum class RiemannSolver : int { HLLC = 0, Rusanov = 1 };

// Physics parameters every kernel needs; plain data, copied into kernels.
struct Physics {
  double gamma = 1.4;
  double cfl = 0.4;
  Limiter limiter = Limiter::MC;
  RiemannSolver riemann = RiemannSolver::HLLC;
};

// The ideal gas's constants as a kernel needs them, made once (where a kernel starts, or on
// the host): gamma - 1 and its reciprocal, so that no face divides by gamma - 1.
template <class Real>
struct IdealGas {
  Real gamma, gamma_minus_1, inv_gamma_minus_1;
  HC_HOST_DEVICE explicit IdealGas(Real g)
      : gamma(g), gamma_minus_1(g - Real(1)), inv_gamma_minus_1(Real(1) / (g - Real(1))) {}
};

// a * b + c rounded once (IEEE fused multiply-add): one instruction on every GPU and on CPUs
// with FMA, and the same bits on all of them, which the compilers' own contraction (off in
// the strict-FP build) would not promise. Written where the physics has a product and a sum
// in one expression, it halves that work and its dependent latency.
template <class Real>
HC_INLINE Real mul_add(Real a, Real b, Real c) {
  return std::fma(a, b, c);
}

// The square root and the absolute value, by names that an overload for another Real can
// join: the physics calls these three unqualified, so that app/arithmetic.hpp's counting
// scalar takes its own overloads (found by argument-dependent lookup) and counts every
// operation of the code as it is. For float and double they are std::sqrt and std::fabs.
template <class Real>
HC_INLINE Real square_root(Real x) {
  return std::sqrt(x);
}
template <class Real>
HC_INLINE Real absolute_value(Real x) {
  return std::fabs(x);
}

// The square roots and reciprocals of a face flux (hllc_flux_products) as IEEE has them: the
// form every backend takes, and the one the fast roots give again where they cannot
// (with_fast_roots).
template <class Real>
struct IeeeRoots {
  HC_INLINE Real sqrt(Real x) const { return square_root(x); }
  HC_INLINE Real reciprocal(Real x) const { return Real(1) / x; }
};

// f(roots) with the roots of kernels/fast_roots.hpp where they exist for Real (fp32 on an
// NVIDIA GPU: IEEE's bits without a branch around each), made again with IEEE's where any of
// their inputs was outside their range; f(IeeeRoots) elsewhere. f writes nothing but its result.
// Only on the architecture whose hardware approximations were checked at every float
// (tools/gpu/fast_roots_check.cpp on sm_90, Hopper): NVIDIA does not promise them the same
// bits on every GPU, so another architecture takes IEEE's until the check has run there.
template <class Real, class F>
HC_INLINE auto with_fast_roots(const F& f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
  if constexpr (std::is_same_v<Real, float>) {
    FastFloatRoots fast;
    const auto result = f(fast);
    if (fast.in_range) return result;
  }
#endif
  const IeeeRoots<Real> ieee;
  return f(ieee);
}

// The smaller of a and b, and m with the sign of a, for the MC limiter. In fp32 on a GPU the
// smaller is IEEE minNum (fminf) and the sign copysign: one instruction each where a comparison
// and a select are two; the fused stage ran 3.0-3.4% faster in fp32 at 512^3
// (docs/performance.md). Elsewhere they are the comparison and select: in fp64 the fused stage,
// which waits on latency rather than on issue, gained nothing from them and split lost 1%. The
// forms differ only where an operand is NaN, or both are zeros of opposite signs, and the
// limiter keeps neither (a NaN difference is flat: is_flat). Called unqualified, as the three
// above.
template <class Real>
HC_INLINE Real smaller(Real a, Real b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  if constexpr (std::is_same_v<Real, float>) return fminf(a, b);
#endif
  return a < b ? a : b;
}
template <class Real>
HC_INLINE Real with_sign_of(Real m, Real a) {
  if constexpr (std::is_same_v<Real, float>)
    return std::copysign(m, a);
  else
    return a > Real(0) ? m : -m;
}

// u0^2 + u1^2 + u2^2 summed in that order.
template <class Real>
HC_INLINE Real squared_norm(Real u0, Real u1, Real u2) {
  return mul_add(u2, u2, mul_add(u1, u1, u0 * u0));
}

// Primitive state in a face-normal frame: u[0] normal, u[1] and u[2] transverse.
template <class Real>
struct Prim {
  Real rho, u[3], p;
};

// Conserved state in the same frame: mass, momentum (normal, t1, t2), total energy.
template <class Real>
struct Cons {
  Real q[kNumVars];
};

// Cell c of a state of n cells stored variable-major (value v at s[v * n + c]): the canonical
// order of the host's copies and of the files, in the x frame.
template <class Real>
HC_INLINE Cons<Real> cell_of(const Real* s, std::size_t n, std::size_t c) {
  Cons<Real> w;
  for (int v = 0; v < kNumVars; ++v) w.q[v] = s[v * n + c];
  return w;
}

// Velocity component stored at conserved slot 1 + rotated(d, c): the normal (c = 0) and
// the two transverse components for a face normal to direction d.
// (A subtraction, not % 3: where d is only known at run time, a GPU makes a signed modulo
// of a dozen integer instructions.)
HC_HOST_DEVICE constexpr int rotated(int d, int c) { return d + c < 3 ? d + c : d + c - 3; }

template <class Real>
HC_INLINE Prim<Real> to_prim(const Cons<Real>& w, const IdealGas<Real>& gas) {
  Prim<Real> s;
  s.rho = w.q[0];
  const Real inv_rho = Real(1) / s.rho;
  s.u[0] = w.q[1] * inv_rho;
  s.u[1] = w.q[2] * inv_rho;
  s.u[2] = w.q[3] * inv_rho;
  const Real kinetic = Real(0.5) * s.rho * squared_norm(s.u[0], s.u[1], s.u[2]);
  s.p = gas.gamma_minus_1 * (w.q[4] - kinetic);
  return s;
}

// The primitive state of a cell in all three face-normal frames at once, for kernels that
// convert each cell once (the fused stage): velocities in x, y, z order and the pressure of
// each frame. in_frame(cell_prims(w), d) is to_prim() of w rotated to frame d bit for bit:
// the velocities are the same products in every frame, and only the kinetic energy's sum
// runs in the frame's order, so each frame's pressure is summed in its own order (three
// squares per frame: a fused multiply-add rounds a square and a sum together).
template <class Real>
struct CellPrims {
  Real rho, u[3], p[3];
};

template <class Real>
HC_INLINE CellPrims<Real> cell_prims(const Cons<Real>& w, const IdealGas<Real>& gas) {
  CellPrims<Real> s;
  s.rho = w.q[0];
  const Real inv_rho = Real(1) / s.rho;
  for (int c = 0; c < 3; ++c) s.u[c] = w.q[1 + c] * inv_rho;
  for (int d = 0; d < 3; ++d) {
    const Real kinetic = Real(0.5) * s.rho * squared_norm(s.u[rotated(d, 0)], s.u[rotated(d, 1)], s.u[rotated(d, 2)]);
    s.p[d] = gas.gamma_minus_1 * (w.q[4] - kinetic);
  }
  return s;
}

// The primitive state of frame d (normal velocity first) from a cell's CellPrims.
template <class Real>
HC_INLINE Prim<Real> in_frame(const CellPrims<Real>& s, int d) {
  Prim<Real> q;
  q.rho = s.rho;
  for (int c = 0; c < 3; ++c) q.u[c] = s.u[rotated(d, c)];
  q.p = s.p[d];
  return q;
}

// A conserved vector of frame d (a face flux: normal momentum first) handed value by value to
// put(slot, value) at its slot in x, y, z order. A kernel whose frame is known only at run time
// stores through this straight to memory: relabelling a local Cons by a run-time d would index
// registers, which a GPU does through local memory (the fused tile's x and y faces).
template <class Real, class Put>
HC_INLINE void put_in_xyz_order(const Cons<Real>& w, int d, const Put& put) {
  put(0, w.q[0]);
  for (int c = 0; c < 3; ++c) put(1 + rotated(d, c), w.q[1 + c]);
  put(4, w.q[4]);
}

// A conserved vector of frame d back in x, y, z order.
template <class Real>
HC_INLINE Cons<Real> from_frame(const Cons<Real>& w, int d) {
  Cons<Real> f;
  put_in_xyz_order(w, d, [&](int v, Real x) { f.q[v] = x; });
  return f;
}

// The total energy per volume of a primitive state: p / (gamma - 1) + rho |u|^2 / 2.
template <class Real>
HC_INLINE Real total_energy(const Prim<Real>& s, const IdealGas<Real>& gas) {
  const Real kinetic = Real(0.5) * s.rho * squared_norm(s.u[0], s.u[1], s.u[2]);
  return mul_add(s.p, gas.inv_gamma_minus_1, kinetic);
}

// The conserved state of a primitive state whose total energy is known.
template <class Real>
HC_INLINE Cons<Real> to_cons(const Prim<Real>& s, Real energy) {
  Cons<Real> w;
  w.q[0] = s.rho;
  w.q[1] = s.rho * s.u[0];
  w.q[2] = s.rho * s.u[1];
  w.q[3] = s.rho * s.u[2];
  w.q[4] = energy;
  return w;
}

template <class Real>
HC_INLINE Cons<Real> to_cons(const Prim<Real>& s, const IdealGas<Real>& gas) {
  return to_cons(s, total_energy(s, gas));
}

template <class Real>
HC_INLINE Real sound_speed(const Prim<Real>& s, const IdealGas<Real>& gas) {
  return square_root(gas.gamma * s.p * (Real(1) / s.rho));
}

// Limited slope from the backward difference a = q_i - q_{i-1} and the forward
// difference b = q_{i+1} - q_i, zero where they change sign or one is zero or NaN (flat:
// is_flat, which the caller made). All three limiters are TVD: the face values q_i +- slope/2 stay
// between the neighbours, so positive densities and pressures stay positive.
// The limiter is a template argument here, and the run-time choice below is made once per
// cell (muscl_cell), not once per slope: a GPU otherwise loads the choice and branches on it
// for each of a cell's five slopes.
template <Limiter Lim, class Real>
HC_INLINE Real limited_slope_given(Real a, Real b, bool flat) {
  if constexpr (Lim == Limiter::VanLeer) {
    if (flat) return Real(0);  // and no division
    return Real(2) * a * b / (a + b);
  } else {
    // Minmod and MC as selects, with no branch: a branch around each slope cost a GPU more than
    // the few operations it skips (limited_slopes skips a cell's five together where all are flat).
    Real limited;
    if constexpr (Lim == Limiter::Minmod) {
      limited = a > Real(0) ? (a < b ? a : b) : (a > b ? a : b);
    } else {
      // Where the slope is not flat, a and b are non-zero with one sign: the slope's size is
      // the smallest of the magnitudes, its sign a's (smaller, with_sign_of: fewer
      // instructions on a GPU in fp32, the same bits).
      const Real centred = Real(0.5) * (a + b);
      const Real abs_a = absolute_value(a), abs_b = absolute_value(b);
      limited = with_sign_of(smaller(absolute_value(centred), Real(2) * smaller(abs_a, abs_b)), a);
    }
    return flat ? Real(0) : limited;
  }
}

// Whether the differences a and b give no slope: they change sign, one is zero, or one is NaN
// (so that no backend's NaN sign or payload reaches a slope).
template <class Real>
HC_INLINE bool is_flat(Real a, Real b) {
  return !(a * b > Real(0));
}

// The limited slope from the differences a and b (limited_slope_given).
template <Limiter Lim, class Real>
HC_INLINE Real limited_slope(Real a, Real b) {
  return limited_slope_given<Lim>(a, b, is_flat(a, b));
}

// f(std::integral_constant<Limiter, lim>{}): the run-time choice made once, as a type.
template <class F>
HC_INLINE auto with_limiter(Limiter lim, const F& f) {
  switch (lim) {
    case Limiter::Minmod: return f(std::integral_constant<Limiter, Limiter::Minmod>{});
    case Limiter::VanLeer: return f(std::integral_constant<Limiter, Limiter::VanLeer>{});
    case Limiter::MC:
    default: return f(std::integral_constant<Limiter, Limiter::MC>{});
  }
}

template <class Real>
HC_INLINE Real limited_slope(Real a, Real b, Limiter lim) {
  return with_limiter(lim, [&](auto l) { return limited_slope<decltype(l)::value>(a, b); });
}

// The states at the low and high faces of one cell along a direction (second-order MUSCL
// in primitive variables): the cell's state minus and plus half its limited slope, each
// value's slope made once from the cell (q) and its neighbours below (qm) and above (qp).
// Safety net: TVD limiters cannot produce a non-positive face density or pressure from
// positive cells, but rounding at near-vacuum states could; a face state that has one falls
// back to the cell's own state (first order).
template <class Real>
struct FaceStates {
  Prim<Real> low, high;
};

// A cell's limited slopes along a direction, one per primitive value, from the cell (q) and
// its neighbours below (qm) and above (qp): limited_slope's bits. Where every value is flat (a
// uniform region, all differences 0) the five are zero without the limiter's arithmetic: one
// branch for the cell, which a GPU's warps in such a region take together. On the H200 this
// made the fused stage 2.5-3.4% faster on bench.toml (no flat cell) and on Sedov (most cells
// flat) than a branch around each slope; no branch at all was 3.8-5.3% faster on bench.toml
// but 2.5-3.8% slower on Sedov (docs/performance.md).
template <Limiter Lim, class Real>
HC_INLINE Prim<Real> limited_slopes(const Prim<Real>& qm, const Prim<Real>& q, const Prim<Real>& qp) {
  const Real below[kNumVars] = {q.rho - qm.rho, q.u[0] - qm.u[0], q.u[1] - qm.u[1], q.u[2] - qm.u[2], q.p - qm.p};
  const Real above[kNumVars] = {qp.rho - q.rho, qp.u[0] - q.u[0], qp.u[1] - q.u[1], qp.u[2] - q.u[2], qp.p - q.p};
  bool flat[kNumVars], sloped = false;
  for (int v = 0; v < kNumVars; ++v) {
    flat[v] = is_flat(below[v], above[v]);
    sloped |= !flat[v];
  }
  Real s[kNumVars] = {Real(0), Real(0), Real(0), Real(0), Real(0)};
  if (sloped)
    for (int v = 0; v < kNumVars; ++v) s[v] = limited_slope_given<Lim>(below[v], above[v], flat[v]);
  Prim<Real> slope;
  slope.rho = s[0];
  for (int c = 0; c < 3; ++c) slope.u[c] = s[1 + c];
  slope.p = s[4];
  return slope;
}

template <class Real>
HC_INLINE Prim<Real> limited_slopes(const Prim<Real>& qm, const Prim<Real>& q, const Prim<Real>& qp, Limiter lim) {
  return with_limiter(lim, [&](auto l) { return limited_slopes<decltype(l)::value>(qm, q, qp); });
}

// The state at one face of a cell: its state plus (side 1, the high face) or minus (side -1,
// the low face) half its slopes, or the cell's own state where that has no positive density
// or pressure. A kernel that keeps a cell's slopes (5 values) instead of its two face states
// (10) makes the faces with this, and gets muscl_cell's bits.
template <class Real>
HC_HOT_INLINE Prim<Real> face_state(const Prim<Real>& q, const Prim<Real>& slope, Real side) {
  const Real half = side * Real(0.5);
  Prim<Real> f;
  f.rho = mul_add(half, slope.rho, q.rho);
  for (int c = 0; c < 3; ++c) f.u[c] = mul_add(half, slope.u[c], q.u[c]);
  f.p = mul_add(half, slope.p, q.p);
  if (!(f.rho > Real(0)) || !(f.p > Real(0))) return q;
  return f;
}

template <Limiter Lim, class Real>
HC_INLINE FaceStates<Real> muscl_cell(const Prim<Real>& qm, const Prim<Real>& q, const Prim<Real>& qp) {
  const Prim<Real> slope = limited_slopes<Lim>(qm, q, qp);
  return {face_state(q, slope, Real(-1)), face_state(q, slope, Real(1))};
}

template <class Real>
HC_INLINE FaceStates<Real> muscl_cell(const Prim<Real>& qm, const Prim<Real>& q, const Prim<Real>& qp, Limiter lim) {
  return with_limiter(lim, [&](auto l) { return muscl_cell<decltype(l)::value>(qm, q, qp); });
}

// Face states at the face between cells i-1 and i, from the primitive states of cells
// i-2, i-1, i, i+1 along the face normal: the high face of cell i-1 on the left, the low
// face of cell i on the right. (A kernel that reconstructs each cell once, muscl_cell,
// gets the same bits: the fused stage.)
template <class Real>
HC_INLINE void muscl_face(const Prim<Real>& qm2, const Prim<Real>& qm1, const Prim<Real>& q0, const Prim<Real>& qp1,
                          Limiter lim, Prim<Real>& left, Prim<Real>& right) {
  left = muscl_cell(qm2, qm1, q0, lim).high;
  right = muscl_cell(qm1, q0, qp1, lim).low;
}

// Physical flux of state s through a face normal to velocity component 0.
template <class Real>
HC_INLINE Cons<Real> physical_flux(const Prim<Real>& s, const Cons<Real>& w) {
  Cons<Real> f;
  const Real un = s.u[0];
  f.q[0] = w.q[0] * un;
  f.q[1] = mul_add(w.q[1], un, s.p);
  f.q[2] = w.q[2] * un;
  f.q[3] = w.q[3] * un;
  f.q[4] = (w.q[4] + s.p) * un;
  return f;
}

// Rusanov (local Lax-Friedrichs) flux: the cheap, very diffusive option.
template <class Real>
HC_INLINE Cons<Real> rusanov_flux(const Prim<Real>& l, const Prim<Real>& r, const IdealGas<Real>& gas) {
  const Cons<Real> wl = to_cons(l, gas), wr = to_cons(r, gas);
  const Cons<Real> fl = physical_flux(l, wl), fr = physical_flux(r, wr);
  const Real sl = absolute_value(l.u[0]) + sound_speed(l, gas);
  const Real sr = absolute_value(r.u[0]) + sound_speed(r, gas);
  const Real half_s = Real(0.5) * (sl > sr ? sl : sr);
  Cons<Real> f;
  for (int v = 0; v < kNumVars; ++v) f.q[v] = mul_add(-half_s, wr.q[v] - wl.q[v], Real(0.5) * (fl.q[v] + fr.q[v]));
  return f;
}

// Einfeldt's estimates of the fastest waves to the left and right of a face, from the sides'
// normal velocities and sound speeds and the Roe averages of velocity and enthalpy (HLLC, below).
template <class Real>
struct WaveSpeeds {
  Real low, high;
};

template <class Real, class Roots>
HC_INLINE WaveSpeeds<Real> einfeldt_speeds(const Prim<Real>& l, const Prim<Real>& r, Real cl, Real cr,
                                           const Real u_roe[3], Real h_roe, const IdealGas<Real>& gas, Roots& roots) {
  Real c2_roe = gas.gamma_minus_1 * (h_roe - Real(0.5) * squared_norm(u_roe[0], u_roe[1], u_roe[2]));
  c2_roe = c2_roe > Real(0) ? c2_roe : Real(0);
  const Real c_roe = roots.sqrt(c2_roe);
  const Real sl_a = l.u[0] - cl, sl_b = u_roe[0] - c_roe;
  const Real sr_a = r.u[0] + cr, sr_b = u_roe[0] + c_roe;
  // Comparisons, not minNum and maxNum: a NaN Roe speed (a density product out of range) must
  // reach the flux, where minNum would take the other speed and make a finite flux of it.
  return {sl_a < sl_b ? sl_a : sl_b, sr_a > sr_b ? sr_a : sr_b};
}

// The HLLC flux with its divisions turned into products (hllc_flux: fp64 takes it as it is,
// fp32 on scaled states, hllc_flux_rescaled), its square roots and reciprocals `roots`' (IEEE's,
// or the fast ones of with_fast_roots).
template <class Real, class Roots = const IeeeRoots<Real>>
HC_INLINE Cons<Real> hllc_flux_products(const Prim<Real>& l, const Prim<Real>& r, const IdealGas<Real>& gas,
                                        Roots&& roots = IeeeRoots<Real>{}) {
  // Divisions and square roots are the costliest operations here (on GPUs above all in
  // fp64, about 14 multiply-adds each): three divisions and four square roots per face. Each
  // division is a reciprocal, multiplied by: the two densities' from one, 1 / (rho_l rho_r).
  const Real rho_lr = l.rho * r.rho;
  const Real inv_rho_lr = roots.reciprocal(rho_lr);
  const Real inv_rl = r.rho * inv_rho_lr, inv_rr = l.rho * inv_rho_lr;
  const Real cl = roots.sqrt(gas.gamma * l.p * inv_rl), cr = roots.sqrt(gas.gamma * r.p * inv_rr);
  // The total energies; the momenta only for the side whose flux the face takes (below).
  const Real el = total_energy(l, gas), er = total_energy(r, gas);

  // Roe averages for the Einfeldt speeds, weighted sqrt(rho_l) : sqrt(rho_r), which is
  // rho_l : g with g = sqrt(rho_l rho_r): one square root, not two.
  const Real g = roots.sqrt(rho_lr);
  const Real inv_sum = roots.reciprocal(l.rho + g);
  Real u_roe[3];
  for (int c = 0; c < 3; ++c) u_roe[c] = mul_add(l.rho, l.u[c], g * r.u[c]) * inv_sum;
  const Real hr = (er + r.p) * inv_rr;  // rho_l times h_l is e_l + p_l
  const Real h_roe = mul_add(g, hr, el + l.p) * inv_sum;
  const WaveSpeeds<Real> speeds = einfeldt_speeds(l, r, cl, cr, u_roe, h_roe, gas, roots);
  const Real sl = speeds.low, sr = speeds.high;

  if (sl >= Real(0)) return physical_flux(l, to_cons(l, el));
  if (sr <= Real(0)) return physical_flux(r, to_cons(r, er));

  const Real ml = l.rho * (sl - l.u[0]);  // mass flux relative to the left wave
  const Real mr = r.rho * (sr - r.u[0]);
  // The contact speed S* = num / den, and the side of it the face sees: den < 0 (ml < 0 < mr,
  // since sl < u_l and sr > u_r), so S* >= 0 where num <= 0 (a NaN takes the left side).
  const Real num = mul_add(-mr, r.u[0], mul_add(ml, l.u[0], r.p - l.p));
  const Real den = ml - mr;
  const bool left_side = !(num > Real(0));

  // Flux of the star region on the side of the contact that the face sees. Copies, not
  // references: a reference chosen at run time between two local structs makes a GPU
  // compiler put both in (slow) local memory.
  const Prim<Real> s = left_side ? l : r;
  const Cons<Real> w = to_cons(s, left_side ? el : er);
  const Real sk = left_side ? sl : sr;
  const Real mk = left_side ? ml : mr;
  Cons<Real> f = physical_flux(s, w);
  // F*_K = F_K + S_K (U*_K - U_K) (Toro 10.38), where U*_K - U_K is (S* - u_K) / (S_K - S*)
  // times (rho, rho S_K, rho v, rho w, E + p + m_K S*), m_K = rho_K (S_K - u_K): Toro's 10.39
  // less U_K, which is exactly 0 where the gas is at rest (S* = u_K = 0). With
  // gap = (S_K - S*) den = S_K den - num, both quotients come from one reciprocal:
  // S* = num gap / (den gap) and (S* - u_K) / (S_K - S*) = (num - u_K den) den / (den gap), so
  // a GPU waits here on one division's latency, not on two in a row. (A reciprocal, not a
  // quotient: a GPU's correctly rounded division sends a numerator near 0 to a slow path.)
  // The products are grouped so that no intermediate grows beyond rho^2 (|u| + c)^3 (num gap
  // would be rho^2 (|u| + c)^4): fp32 then holds speeds to about 1e9 at densities near 1.
  const Real gap = mul_add(sk, den, -num);
  const Real inv_both = roots.reciprocal(den * gap);
  const Real inv_den = gap * inv_both, inv_gap = den * inv_both;
  const Real s_star = num * inv_den;
  const Real jump = (sk * mul_add(-s.u[0], den, num)) * inv_gap;  // S_K (S* - u_K) / (S_K - S*)
  f.q[0] = mul_add(jump, w.q[0], f.q[0]);
  f.q[1] = mul_add(jump, w.q[0] * sk, f.q[1]);
  f.q[2] = mul_add(jump, w.q[2], f.q[2]);
  f.q[3] = mul_add(jump, w.q[3], f.q[3]);
  f.q[4] = mul_add(jump, mul_add(mk, s_star, w.q[4] + s.p), f.q[4]);
  return f;
}

// A power of two near 1 / rho and its reciprocal, both exact: `down` brings rho into [1, 2),
// `up` takes a result back. float only (its exponent field); a counting Real (app/arithmetic.hpp)
// brings its own, found by argument-dependent lookup.
template <class Real>
struct PowerOfTwoScale {
  Real down, up;
};

HC_INLINE PowerOfTwoScale<float> density_scale(float rho) {
  // rho's unbiased exponent, kept where both powers are normal floats (a NaN or an infinite
  // density stays so through the scaling, and the flux with it).
  int e = static_cast<int>((bit_cast<std::uint32_t>(rho) >> 23) & 0xffu) - 127;
  e = e < -126 ? -126 : (e > 126 ? 126 : e);
  return {bit_cast<float>(static_cast<std::uint32_t>(127 - e) << 23),
          bit_cast<float>(static_cast<std::uint32_t>(127 + e) << 23)};
}

// The HLLC flux in the form with products, on the two states with their densities and
// pressures scaled by a power of two that brings the left density into [1, 2). The flux is
// homogeneous of degree one in the densities and pressures at fixed velocities, and a power of
// two scales every intermediate of the products form exactly: the flux is that form's bits
// wherever that form stays in range, and stays in range for any density a float holds, where
// the products form alone (its intermediates grow like rho^2) leaves float's range beyond
// densities of about 1e+-19.
template <class Real>
HC_INLINE Cons<Real> hllc_flux_rescaled(const Prim<Real>& l, const Prim<Real>& r, const IdealGas<Real>& gas) {
  const PowerOfTwoScale<Real> k = density_scale(l.rho);
  const auto scaled = [&](const Prim<Real>& s) {
    Prim<Real> t = s;
    t.rho = s.rho * k.down;
    t.p = s.p * k.down;
    return t;
  };
  const Prim<Real> ls = scaled(l), rs = scaled(r);
  Cons<Real> f = with_fast_roots<Real>([&](auto& roots) { return hllc_flux_products(ls, rs, gas, roots); });
  for (int v = 0; v < kNumVars; ++v) f.q[v] = f.q[v] * k.up;
  return f;
}

// HLLC flux (Toro, Spruce and Speares 1994) with Einfeldt's wave-speed estimates (from
// Roe averages), for which HLLC is positively conservative (Batten et al. 1997): strong
// shocks and near-vacuum rarefactions keep positive density and pressure. Three divisions and
// four square roots a face (hllc_flux_products); its intermediates grow like
// rho^2 (|u| + c)^3, which fp64 holds for any density from 1e-150 to 1e150, and fp32 only after
// its states are scaled (hllc_flux_rescaled: the same bits where both stay in range;
// Physics.HllcInFloatIsAccurateAtEveryDensityScale).
// Another Real (app/arithmetic.hpp's counting scalar) says whether it counts the scaling
// through hllc_rescales, found by argument-dependent lookup.
template <class Real>
HC_INLINE Cons<Real> hllc_flux(const Prim<Real>& l, const Prim<Real>& r, const IdealGas<Real>& gas) {
  if constexpr (std::is_same_v<Real, double>) {
    return hllc_flux_products(l, r, gas);
  } else if constexpr (std::is_same_v<Real, float>) {
    return hllc_flux_rescaled(l, r, gas);
  } else {
    return hllc_rescales(l.rho) ? hllc_flux_rescaled(l, r, gas) : hllc_flux_products(l, r, gas);
  }
}

template <class Real>
HC_INLINE Cons<Real> riemann_flux(const Prim<Real>& l, const Prim<Real>& r, const IdealGas<Real>& gas,
                                  RiemannSolver solver) {
  return solver == RiemannSolver::Rusanov ? rusanov_flux(l, r, gas) : hllc_flux(l, r, gas);
}

// Sum over the active directions of (|u_d| + c) / dx_d: the inverse of the largest stable
// time step of an unsplit update in this cell, before the CFL factor.
template <class Real>
HC_INLINE Real signal_rate(const Cons<Real>& w, const IdealGas<Real>& gas, const Real inv_dx[3], const bool active[3]) {
  const Prim<Real> s = to_prim(w, gas);
  // A cell without positive density and pressure has no sound speed: infinitely fast, so
  // that the time step fails and the run stops (NaN is caught the same way by the callers).
  if (!(s.rho > Real(0)) || !(s.p > Real(0))) return static_cast<Real>(HUGE_VAL);
  const Real c = sound_speed(s, gas);
  Real rate = Real(0);
  for (int d = 0; d < 3; ++d)
    if (active[d]) rate = mul_add(absolute_value(s.u[d]) + c, inv_dx[d], rate);
  return rate;
}

}  // namespace halocline
