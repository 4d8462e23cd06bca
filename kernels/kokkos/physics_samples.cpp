// The physics functions at a test's chosen inputs, in a Kokkos loop of the default execution
// space (kernels/physics_samples.hpp): on a GPU build, in its device code.
#include <Kokkos_Core.hpp>
#include <vector>

#include "kernels/kokkos/kokkos_backend.hpp"
#include "kernels/physics_samples.hpp"

namespace halocline {

namespace {

template <class Real>
struct SampleLoop {
  Kokkos::View<PhysicsSample<Real>*> samples;
  IdealGas<Real> gas;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const { evaluate_sample(samples(i), gas); }
};

template <class Real>
void evaluate_in_loop(std::vector<PhysicsSample<Real>>& samples, Real gamma) {
  const std::size_t n = samples.size();
  if (n == 0) return;
  const Kokkos::View<PhysicsSample<Real>*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
      samples.data(), n);
  const SampleLoop<Real> loop{Kokkos::View<PhysicsSample<Real>*>("physics_samples", n), IdealGas<Real>(gamma)};
  Kokkos::deep_copy(loop.samples, host);
  Kokkos::parallel_for("physics_samples", Kokkos::RangePolicy<>(0, n), loop);
  Kokkos::deep_copy(host, loop.samples);
}

}  // namespace

void evaluate_samples_kokkos(std::vector<PhysicsSample<double>>& samples, double gamma) {
  evaluate_in_loop(samples, gamma);
}
void evaluate_samples_kokkos(std::vector<PhysicsSample<float>>& samples, float gamma) {
  evaluate_in_loop(samples, gamma);
}

}  // namespace halocline
