# The Kokkos backend (kernels/kokkos/), in a library of its own: only its sources include
# Kokkos, so only they take Kokkos' compile flags. That matters when Kokkos is built for a
# GPU: find_package(Kokkos) then sends every compile that carries Kokkos' flags through
# nvcc_wrapper (CUDA) or hipcc (HIP), and the rest of Halocline stays with the C++ compiler.
# Consumers of halocline_core link Kokkos' libraries, not its compile flags.
# The two libraries use each other (the backend implements the core's interfaces and
# uses its timers): CMake links such a pair of static libraries in a cycle.
add_library(halocline_kokkos STATIC kernels/kokkos/kokkos_backend.cpp kernels/kokkos/probe.cpp)
target_link_libraries(halocline_kokkos PRIVATE Kokkos::kokkos halocline_core)
target_compile_definitions(halocline_core PUBLIC HALOCLINE_HAVE_KOKKOS)
target_link_libraries(halocline_core PUBLIC halocline_kokkos)

set(HALOCLINE_KOKKOS_GPU "")
if(Kokkos_ENABLE_CUDA)
  set(HALOCLINE_KOKKOS_GPU "cuda")
  # The device events of the phase timers come from kernels/hip/event_clock.hpp, through
  # the HIP-to-CUDA mapping header; the kernels obey the same floating-point rule as the
  # native backend's (no fused multiply-add: bitwise agreement with the CPU).
  target_compile_definitions(halocline_kokkos PRIVATE HALOCLINE_HIP_NVIDIA)
  if(HALOCLINE_STRICT_FP)
    target_compile_options(halocline_kokkos PRIVATE --fmad=false)
  endif()
  find_package(CUDAToolkit REQUIRED)
  target_link_libraries(halocline_kokkos PRIVATE CUDA::cudart)
elseif(Kokkos_ENABLE_HIP)
  set(HALOCLINE_KOKKOS_GPU "hip")
  if(HALOCLINE_STRICT_FP)
    target_compile_options(halocline_kokkos PRIVATE -ffp-contract=off)
  endif()
endif()
if(HALOCLINE_KOKKOS_GPU)
  message(STATUS "Kokkos backend on the GPU (${HALOCLINE_KOKKOS_GPU}): ${Kokkos_DEVICES}, arch ${Kokkos_ARCH}")
endif()
