# Spack recipe for Halocline (docs/install.md says how to use it). Checked in CI by
# tests/spack_recipe.py: it compiles, has the variants and dependencies below, and its
# cmake_args turn each variant into the CMake options of CMakeLists.txt.
from spack.package import *

try:  # Spack 1.0 and later: the build systems come with the builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
    from spack_repo.builtin.build_systems.rocm import ROCmPackage
except ImportError:  # Spack 0.x: spack.package exports them
    pass


class Halocline(CMakePackage, CudaPackage):
    """A 3-D compressible-flow stencil mini-app (MUSCL, HLLC, SSP-RK2) that measures what
    memory strategy does to a GPU code: data layouts, who owns the state, pinned or pageable
    host memory, halo exchange overlapped with compute; Kokkos and HIP backends, MPI."""

    # The project has no public repository yet, so no `homepage` or `git`: Spack builds a
    # local checkout (`spack develop`, docs/install.md). Once it has one, set both here. Each
    # release is a version with its tag and commit (docs/release.md).
    license("BSD-3-Clause")

    version("main", branch="main")
    version("0.2.0", tag="v0.2.0", commit="379f9aac9df4e059070b5c20abadbf6d5d37df5f")

    # Backends. +cuda is the native HIP backend compiled by nvcc for NVIDIA GPUs, through
    # the HIP-to-CUDA mapping header (kernels/hip/hip_nvidia.hpp); +hip is the same backend
    # compiled by hipcc for AMD GPUs. One HIP platform per build.
    variant("kokkos", default=True, description="The Kokkos backend (on the GPU too with +cuda)")
    variant("hip", default=False, description="The native HIP backend for AMD GPUs (hipcc)")
    variant(
        "amdgpu_target",
        description="AMD GPU architectures for +hip (CMake's GPU_TARGETS)",
        values=ROCmPackage.amdgpu_targets,
        default="gfx90a,gfx942",
        multi=True,
        when="+hip",
    )
    # CudaPackage gives +cuda; one architecture, as Kokkos' CUDA backend takes one.
    variant(
        "cuda_arch",
        description="NVIDIA GPU architecture for +cuda, e.g. 90 for H100 and H200",
        values=("none",) + CudaPackage.cuda_arch_values,
        default="none",
        multi=False,
        when="+cuda",
    )
    variant("mpi", default=True, description="Domain decomposition over MPI ranks, parallel HDF5")
    variant("strict_fp", default=True, description="No FMA contraction: CPU and GPU agree bit for bit")
    variant("plot", default=True, description="matplotlib for bench --plot and plot.py")

    conflicts("+cuda", when="+hip", msg="one HIP platform per build: +cuda (NVIDIA) or +hip (AMD)")
    conflicts("~kokkos", when="~cuda~hip", msg="enable a backend: +kokkos, +cuda or +hip")
    conflicts("cuda_arch=none", when="+cuda", msg="name the GPU, e.g. cuda_arch=90 (H100, H200)")

    depends_on("c", type="build")  # CMake's FindHDF5 probes HDF5 with a C program
    depends_on("cxx", type="build")
    depends_on("cmake@3.20:", type="build")

    depends_on("hdf5")
    depends_on("hdf5+mpi", when="+mpi")
    depends_on("hdf5~mpi", when="~mpi")  # a parallel HDF5's headers need MPI's
    depends_on("mpi", when="+mpi")
    depends_on("tomlplusplus@3:")
    depends_on("cli11@2:")
    depends_on("nlohmann-json@3:")
    depends_on("googletest", type="test")

    # Built and tested against Kokkos 3.4 (Serial) and 4.6 (OpenMP, CUDA); Kokkos 5 needs
    # C++20, and Halocline is C++17. With +cuda Kokkos runs on the same GPU as the HIP
    # backend, compiled through Kokkos' nvcc_wrapper (docs/kokkos.md); with +hip it stays on
    # the host (Kokkos on an AMD GPU needs the whole program compiled by hipcc: the
    # kokkos-hip preset).
    depends_on("kokkos@3.4:4", when="+kokkos")
    depends_on("kokkos~cuda~rocm", when="+kokkos~cuda")
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda+wrapper cuda_arch={arch}", when=f"+kokkos+cuda cuda_arch={arch}")

    depends_on("hip", when="+hip")

    depends_on("python@3:", type=("build", "run"), when="+plot")
    depends_on("py-matplotlib", type=("run", "test"), when="+plot")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("HALOCLINE_BUILD_TESTS", self.run_tests),
            self.define_from_variant("HALOCLINE_ENABLE_KOKKOS", "kokkos"),
            self.define_from_variant("HALOCLINE_ENABLE_MPI", "mpi"),
            self.define_from_variant("HALOCLINE_PARALLEL_HDF5", "mpi"),
            self.define_from_variant("HALOCLINE_STRICT_FP", "strict_fp"),
            self.define("HALOCLINE_ENABLE_HIP", spec.satisfies("+cuda") or spec.satisfies("+hip")),
        ]
        if spec.satisfies("+cuda"):
            args += [
                self.define("HALOCLINE_HIP_PLATFORM", "nvidia"),
                self.define("CMAKE_CUDA_ARCHITECTURES", spec.variants["cuda_arch"].value),
                self.define("CMAKE_CUDA_COMPILER", join_path(spec["cuda"].prefix.bin, "nvcc")),
            ]
        if spec.satisfies("+hip"):
            args += [
                self.define("HALOCLINE_HIP_PLATFORM", "amd"),
                self.define("GPU_TARGETS", list(spec.variants["amdgpu_target"].value)),
            ]
        if spec.satisfies("+plot"):
            # bench --plot runs plot.py with this python, which has matplotlib.
            args.append(self.define("HALOCLINE_PLOT_PYTHON", spec["python"].command.path))
        return args
