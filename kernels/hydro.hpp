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

#include "kernels/grid.hpp"
#include "kernels/portability.hpp"

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

// Velocity component stored at conserved slot 1 + rotated(d, c): the normal (c = 0) and
// the two transverse components for a face normal to direction d.
HC_HOST_DEVICE constexpr int rotated(int d, int c) { return (d + c) % 3; }

template <class Real>
HC_INLINE Prim<Real> to_prim(const Cons<Real>& w, Real gamma) {
  Prim<Real> s;
  s.rho = w.q[0];
  const Real inv_rho = Real(1) / s.rho;
  s.u[0] = w.q[1] * inv_rho;
  s.u[1] = w.q[2] * inv_rho;
  s.u[2] = w.q[3] * inv_rho;
  const Real kinetic = Real(0.5) * s.rho * (s.u[0] * s.u[0] + s.u[1] * s.u[1] + s.u[2] * s.u[2]);
  s.p = (gamma - Real(1)) * (w.q[4] - kinetic);
  return s;
}

// The primitive state of a cell in all three face-normal frames at once, for kernels that
// convert each cell once (the fused stage): velocities in x, y, z order and the pressure of
// each frame. in_frame(cell_prims(w), d) is to_prim() of w rotated to frame d bit for bit:
// the velocities are the same products in every frame, and only the kinetic energy's sum
// runs in the frame's order, so each frame's pressure is summed in its own order.
template <class Real>
struct CellPrims {
  Real rho, u[3], p[3];
};

template <class Real>
HC_INLINE CellPrims<Real> cell_prims(const Cons<Real>& w, Real gamma) {
  CellPrims<Real> s;
  s.rho = w.q[0];
  const Real inv_rho = Real(1) / s.rho;
  for (int c = 0; c < 3; ++c) s.u[c] = w.q[1 + c] * inv_rho;
  const Real sq[3] = {s.u[0] * s.u[0], s.u[1] * s.u[1], s.u[2] * s.u[2]};
  for (int d = 0; d < 3; ++d) {
    const Real kinetic = Real(0.5) * s.rho * (sq[rotated(d, 0)] + sq[rotated(d, 1)] + sq[rotated(d, 2)]);
    s.p[d] = (gamma - Real(1)) * (w.q[4] - kinetic);
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

// A conserved vector of frame d (a face flux: normal momentum first) back in x, y, z order.
template <class Real>
HC_INLINE Cons<Real> from_frame(const Cons<Real>& w, int d) {
  Cons<Real> f;
  f.q[0] = w.q[0];
  for (int c = 0; c < 3; ++c) f.q[1 + rotated(d, c)] = w.q[1 + c];
  f.q[4] = w.q[4];
  return f;
}

template <class Real>
HC_INLINE Cons<Real> to_cons(const Prim<Real>& s, Real gamma) {
  Cons<Real> w;
  w.q[0] = s.rho;
  w.q[1] = s.rho * s.u[0];
  w.q[2] = s.rho * s.u[1];
  w.q[3] = s.rho * s.u[2];
  const Real kinetic = Real(0.5) * s.rho * (s.u[0] * s.u[0] + s.u[1] * s.u[1] + s.u[2] * s.u[2]);
  w.q[4] = s.p / (gamma - Real(1)) + kinetic;
  return w;
}

template <class Real>
HC_INLINE Real sound_speed(const Prim<Real>& s, Real gamma) {
  return std::sqrt(gamma * s.p / s.rho);
}

// Limited slope from the backward difference a = q_i - q_{i-1} and the forward
// difference b = q_{i+1} - q_i. All three limiters are TVD: the face values q_i +- slope/2
// stay between the neighbours, so positive densities and pressures stay positive.
template <class Real>
HC_INLINE Real limited_slope(Real a, Real b, Limiter lim) {
  if (a * b <= Real(0)) return Real(0);
  switch (lim) {
    case Limiter::Minmod: return a > Real(0) ? (a < b ? a : b) : (a > b ? a : b);
    case Limiter::VanLeer: return Real(2) * a * b / (a + b);
    case Limiter::MC:
    default: {
      const Real centred = Real(0.5) * (a + b);
      const Real abs_a = std::fabs(a), abs_b = std::fabs(b), abs_c = std::fabs(centred);
      Real m = Real(2) * (abs_a < abs_b ? abs_a : abs_b);
      m = abs_c < m ? abs_c : m;
      return a > Real(0) ? m : -m;
    }
  }
}

// Face states at the face between cells i-1 and i, from the primitive states of cells
// i-2, i-1, i, i+1 along the face normal (second-order MUSCL in primitive variables).
template <class Real>
HC_INLINE void muscl_face(const Prim<Real>& qm2, const Prim<Real>& qm1, const Prim<Real>& q0, const Prim<Real>& qp1,
                          Limiter lim, Prim<Real>& left, Prim<Real>& right) {
  const Real half = Real(0.5);
  left.rho = qm1.rho + half * limited_slope(qm1.rho - qm2.rho, q0.rho - qm1.rho, lim);
  right.rho = q0.rho - half * limited_slope(q0.rho - qm1.rho, qp1.rho - q0.rho, lim);
  for (int c = 0; c < 3; ++c) {
    left.u[c] = qm1.u[c] + half * limited_slope(qm1.u[c] - qm2.u[c], q0.u[c] - qm1.u[c], lim);
    right.u[c] = q0.u[c] - half * limited_slope(q0.u[c] - qm1.u[c], qp1.u[c] - q0.u[c], lim);
  }
  left.p = qm1.p + half * limited_slope(qm1.p - qm2.p, q0.p - qm1.p, lim);
  right.p = q0.p - half * limited_slope(q0.p - qm1.p, qp1.p - q0.p, lim);
  // Safety net: TVD limiters cannot produce a non-positive face density or pressure from
  // positive cells, but rounding at near-vacuum states could; fall back to first order.
  if (!(left.rho > Real(0)) || !(left.p > Real(0))) left = qm1;
  if (!(right.rho > Real(0)) || !(right.p > Real(0))) right = q0;
}

// Physical flux of state s through a face normal to velocity component 0.
template <class Real>
HC_INLINE Cons<Real> physical_flux(const Prim<Real>& s, const Cons<Real>& w) {
  Cons<Real> f;
  const Real un = s.u[0];
  f.q[0] = w.q[0] * un;
  f.q[1] = w.q[1] * un + s.p;
  f.q[2] = w.q[2] * un;
  f.q[3] = w.q[3] * un;
  f.q[4] = (w.q[4] + s.p) * un;
  return f;
}

// Rusanov (local Lax-Friedrichs) flux: the cheap, very diffusive option.
template <class Real>
HC_INLINE Cons<Real> rusanov_flux(const Prim<Real>& l, const Prim<Real>& r, Real gamma) {
  const Cons<Real> wl = to_cons(l, gamma), wr = to_cons(r, gamma);
  const Cons<Real> fl = physical_flux(l, wl), fr = physical_flux(r, wr);
  const Real sl = std::fabs(l.u[0]) + sound_speed(l, gamma);
  const Real sr = std::fabs(r.u[0]) + sound_speed(r, gamma);
  const Real s = sl > sr ? sl : sr;
  Cons<Real> f;
  for (int v = 0; v < kNumVars; ++v) f.q[v] = Real(0.5) * (fl.q[v] + fr.q[v]) - Real(0.5) * s * (wr.q[v] - wl.q[v]);
  return f;
}

// HLLC flux (Toro, Spruce and Speares 1994) with Einfeldt's wave-speed estimates (from
// Roe averages), for which HLLC is positively conservative (Batten et al. 1997): strong
// shocks and near-vacuum rarefactions keep positive density and pressure.
template <class Real>
HC_INLINE Cons<Real> hllc_flux(const Prim<Real>& l, const Prim<Real>& r, Real gamma) {
  // Divisions are the costliest operations here (on GPUs above all in fp64): take the two
  // reciprocal densities once and multiply by them.
  const Real inv_rl = Real(1) / l.rho, inv_rr = Real(1) / r.rho;
  const Real cl = std::sqrt(gamma * l.p * inv_rl), cr = std::sqrt(gamma * r.p * inv_rr);
  const Cons<Real> wl = to_cons(l, gamma), wr = to_cons(r, gamma);

  // Roe averages for the Einfeldt speeds.
  const Real sql = std::sqrt(l.rho), sqr = std::sqrt(r.rho);
  const Real inv_sum = Real(1) / (sql + sqr);
  Real u_roe[3];
  for (int c = 0; c < 3; ++c) u_roe[c] = (sql * l.u[c] + sqr * r.u[c]) * inv_sum;
  const Real hl = (wl.q[4] + l.p) * inv_rl, hr = (wr.q[4] + r.p) * inv_rr;
  const Real h_roe = (sql * hl + sqr * hr) * inv_sum;
  Real c2_roe =
      (gamma - Real(1)) * (h_roe - Real(0.5) * (u_roe[0] * u_roe[0] + u_roe[1] * u_roe[1] + u_roe[2] * u_roe[2]));
  c2_roe = c2_roe > Real(0) ? c2_roe : Real(0);
  const Real c_roe = std::sqrt(c2_roe);

  const Real sl_a = l.u[0] - cl, sl_b = u_roe[0] - c_roe;
  const Real sr_a = r.u[0] + cr, sr_b = u_roe[0] + c_roe;
  const Real sl = sl_a < sl_b ? sl_a : sl_b;
  const Real sr = sr_a > sr_b ? sr_a : sr_b;

  if (sl >= Real(0)) return physical_flux(l, wl);
  if (sr <= Real(0)) return physical_flux(r, wr);

  const Real ml = l.rho * (sl - l.u[0]);  // mass flux relative to the left wave
  const Real mr = r.rho * (sr - r.u[0]);
  const Real s_star = (r.p - l.p + ml * l.u[0] - mr * r.u[0]) / (ml - mr);

  // Flux of the star region on the side of the contact that the face sees. Copies, not
  // references: a reference chosen at run time between two local structs makes a GPU
  // compiler put both in (slow) local memory.
  const bool left_side = s_star >= Real(0);
  const Prim<Real> s = left_side ? l : r;
  const Cons<Real> w = left_side ? wl : wr;
  const Real sk = left_side ? sl : sr;
  const Real mk = left_side ? ml : mr;
  Cons<Real> f = physical_flux(s, w);
  const Real factor = mk / (sk - s_star);  // rho_K (S_K - u_K) / (S_K - S*)
  Cons<Real> star;
  star.q[0] = factor;
  star.q[1] = factor * s_star;
  star.q[2] = factor * s.u[1];
  star.q[3] = factor * s.u[2];
  const Real inv_rk = left_side ? inv_rl : inv_rr;
  star.q[4] = factor * (w.q[4] * inv_rk + (s_star - s.u[0]) * (s_star + s.p / mk));
  for (int v = 0; v < kNumVars; ++v) f.q[v] = f.q[v] + sk * (star.q[v] - w.q[v]);
  return f;
}

template <class Real>
HC_INLINE Cons<Real> riemann_flux(const Prim<Real>& l, const Prim<Real>& r, Real gamma, RiemannSolver solver) {
  return solver == RiemannSolver::Rusanov ? rusanov_flux(l, r, gamma) : hllc_flux(l, r, gamma);
}

// Sum over the active directions of (|u_d| + c) / dx_d: the inverse of the largest stable
// time step of an unsplit update in this cell, before the CFL factor.
template <class Real>
HC_INLINE Real signal_rate(const Cons<Real>& w, Real gamma, const Real inv_dx[3], const bool active[3]) {
  const Prim<Real> s = to_prim(w, gamma);
  // A cell without positive density and pressure has no sound speed: infinitely fast, so
  // that the time step fails and the run stops (NaN is caught the same way by the callers).
  if (!(s.rho > Real(0)) || !(s.p > Real(0))) return static_cast<Real>(HUGE_VAL);
  const Real c = sound_speed(s, gamma);
  Real rate = Real(0);
  for (int d = 0; d < 3; ++d)
    if (active[d]) rate += (std::fabs(s.u[d]) + c) * inv_dx[d];
  return rate;
}

}  // namespace halocline
