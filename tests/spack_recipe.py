#!/usr/bin/env python3
"""The Spack recipe, packaging/spack/package.py, checked without Spack (it is not a Debian
package, and CI installs nothing else).

    tests/spack_recipe.py CHECK SOURCE_DIR

CHECK is one of:
  CompilesWithItsClassVariantsAndDependencies
      it compiles (py_compile), and its syntax tree has the class Halocline on CMakePackage
      and CudaPackage (+cuda), the variants hip, kokkos and mpi, the dependencies hdf5,
      googletest (for tests only), tomlplusplus, cli11, nlohmann-json and kokkos, and a
      cmake_args method
  CmakeArgsFollowTheVariants
      run against a stand-in for the part of Spack's package API it uses, its cmake_args
      give the CMake options each set of variants needs (+cuda: the HIP backend on nvidia;
      +hip: on amd with GPU_TARGETS; ~mpi; ~kokkos; tests), every HALOCLINE_ option one
      that CMakeLists.txt reads, and its Kokkos follows it onto the GPU

Exits 0 when the check holds, 1 naming what broke.
"""
import ast
import os
import py_compile
import re
import sys
import tempfile
import types
from pathlib import Path

from check_verdict import verdict


def calls_in(body, name):
    """The calls of `name` (a directive) in a class body, loops included."""
    return [n for n in ast.walk(ast.Module(body=body, type_ignores=[]))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name]


def first_word(node):
    """A directive's first argument's leading name: "kokkos@3.4:4" and f"kokkos+cuda ..." -> kokkos."""
    if isinstance(node, ast.JoinedStr):
        node = node.values[0]
    text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
    return re.match(r"[\w-]*", text).group(0)


def compiles_with_its_class_variants_and_dependencies(recipe, src):
    failures = []
    with tempfile.TemporaryDirectory() as work:
        try:
            py_compile.compile(str(recipe), cfile=os.path.join(work, "package.pyc"), doraise=True)
        except py_compile.PyCompileError as e:
            return [f"does not compile: {e.msg}"]
    tree = ast.parse(recipe.read_text())
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Halocline"]
    if not classes:
        return ["no class Halocline"]
    cls = classes[0]
    bases = {b.id for b in cls.bases if isinstance(b, ast.Name)}
    for base in ("CMakePackage", "CudaPackage"):
        if base not in bases:
            failures.append(f"Halocline is not a {base} (bases: {sorted(bases)})")
    variants = {first_word(c.args[0]) for c in calls_in(cls.body, "variant") if c.args}
    for name in ("hip", "kokkos", "mpi"):
        if name not in variants:
            failures.append(f"no variant '{name}' (variants: {sorted(variants)})")
    depends = calls_in(cls.body, "depends_on")
    names = {first_word(c.args[0]) for c in depends if c.args}
    for name in ("hdf5", "googletest", "tomlplusplus", "cli11", "nlohmann-json", "kokkos"):
        if name not in names:
            failures.append(f"no depends_on('{name}...')")
    for c in depends:
        if c.args and first_word(c.args[0]) == "googletest":
            kinds = [k.value for k in c.keywords if k.arg == "type"]
            if not (kinds and isinstance(kinds[0], ast.Constant) and kinds[0].value == "test"):
                failures.append("googletest is not a test-only dependency (type='test')")
    if not any(isinstance(n, ast.FunctionDef) and n.name == "cmake_args" for n in cls.body):
        failures.append("no cmake_args method")
    return failures


# ---- A stand-in for the part of Spack's package API the recipe uses ---------------------

class Directives:
    def __init__(self):
        self.calls = []

    def recorder(self, name):
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))


class Variant:
    def __init__(self, value):
        self.value = value


class Spec:
    """Variants as a dict: name -> bool, str or tuple; satisfies() reads +a, ~a and a=b."""

    def __init__(self, variants):
        self.variants = {k: Variant(v) for k, v in variants.items()}

    def satisfies(self, text):
        for sign, name, value in re.findall(r"([+~])(\w+)|(\w+=[\w,]+)", text):
            if value:
                key, want = value.split("=")
                if key not in self.variants or str(self.variants[key].value) != want:
                    return False
            elif name not in self.variants or self.variants[name].value != (sign == "+"):
                return False
        return True

    def __getitem__(self, dependency):
        prefix = types.SimpleNamespace(bin=f"/spack/{dependency}/bin")
        return types.SimpleNamespace(prefix=prefix, command=types.SimpleNamespace(path=f"{prefix.bin}/{dependency}3"))


class CMakePackage:
    def define(self, name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        elif isinstance(value, (list, tuple)):
            value = ";".join(value)
        return (name, value)

    def define_from_variant(self, name, variant):
        return self.define(name, self.spec.variants[variant].value)


class CudaPackage:
    cuda_arch_values = ("70", "80", "90", "100")


class ROCmPackage:
    amdgpu_targets = ("gfx908", "gfx90a", "gfx942")


def load_recipe(recipe):
    directives = Directives()
    api = types.ModuleType("spack.package")
    for name in ("version", "variant", "conflicts", "depends_on", "license"):
        setattr(api, name, directives.recorder(name))
    api.CMakePackage, api.CudaPackage, api.ROCmPackage = CMakePackage, CudaPackage, ROCmPackage
    api.join_path = lambda *parts: "/".join(parts)
    sys.modules["spack"] = types.ModuleType("spack")
    sys.modules["spack.package"] = api
    namespace = {}
    exec(compile(recipe.read_text(), str(recipe), "exec"), namespace)
    return namespace["Halocline"], directives.calls


def cmake_args(cls, run_tests=False, **variants):
    defaults = {"kokkos": True, "hip": False, "cuda": False, "mpi": True, "strict_fp": True, "plot": True}
    package = cls.__new__(cls)
    package.spec = Spec({**defaults, **variants})
    package.run_tests = run_tests
    return dict(package.cmake_args())


def cmake_args_follow_the_variants(recipe, src):
    cls, calls = load_recipe(recipe)
    cases = [
        ("default", {}, {"HALOCLINE_BUILD_TESTS": "OFF", "HALOCLINE_ENABLE_KOKKOS": "ON", "HALOCLINE_ENABLE_MPI": "ON",
                         "HALOCLINE_PARALLEL_HDF5": "ON", "HALOCLINE_STRICT_FP": "ON", "HALOCLINE_ENABLE_HIP": "OFF",
                         "HALOCLINE_PLOT_PYTHON": "/spack/python/bin/python3"}),
        ("+cuda cuda_arch=90 ~mpi", {"cuda": True, "cuda_arch": "90", "mpi": False},
         {"HALOCLINE_ENABLE_HIP": "ON", "HALOCLINE_HIP_PLATFORM": "nvidia", "CMAKE_CUDA_ARCHITECTURES": "90",
          "CMAKE_CUDA_COMPILER": "/spack/cuda/bin/nvcc", "HALOCLINE_ENABLE_MPI": "OFF",
          "HALOCLINE_PARALLEL_HDF5": "OFF", "HALOCLINE_ENABLE_KOKKOS": "ON"}),
        ("+hip amdgpu_target=gfx90a,gfx942 ~kokkos", {"hip": True, "amdgpu_target": ("gfx90a", "gfx942"),
                                                    "kokkos": False},
         {"HALOCLINE_ENABLE_HIP": "ON", "HALOCLINE_HIP_PLATFORM": "amd", "GPU_TARGETS": "gfx90a;gfx942",
          "HALOCLINE_ENABLE_KOKKOS": "OFF"}),
        ("~strict_fp ~plot, tests", {"strict_fp": False, "plot": False, "run_tests": True},
         {"HALOCLINE_STRICT_FP": "OFF", "HALOCLINE_BUILD_TESTS": "ON"}),
    ]
    failures = []
    cmake_text = "".join(p.read_text() for p in [src / "CMakeLists.txt", *src.glob("kernels/*/CMakeLists.txt")])
    for name, variants, wanted in cases:
        run_tests = variants.pop("run_tests", False)
        got = cmake_args(cls, run_tests, **variants)
        for key, value in wanted.items():
            if got.get(key) != value:
                failures.append(f"{name}: {key} is {got.get(key)!r}, not {value!r}")
        if "cuda" not in variants and any(k.startswith("CMAKE_CUDA") for k in got):
            failures.append(f"{name}: CUDA options without +cuda: {sorted(got)}")
        if not variants.get("hip") and "GPU_TARGETS" in got:
            failures.append(f"{name}: GPU_TARGETS without +hip")
        if "plot" in variants and "HALOCLINE_PLOT_PYTHON" in got:
            failures.append(f"{name}: HALOCLINE_PLOT_PYTHON without +plot")
        for key in got:  # CMake's own variables (CMAKE_*) aside
            if not key.startswith("CMAKE_") and not re.search(rf"\b{key}\b", cmake_text):
                failures.append(f"{name}: {key} is read nowhere in CMakeLists.txt")
    # Kokkos goes onto the GPU with +cuda, for the architecture asked for, and stays off it
    # otherwise; +cuda and +hip exclude each other.
    depends = {(a[0], k.get("when")) for n, a, k in calls if n == "depends_on"}
    for dependency, when in [("kokkos+cuda+wrapper cuda_arch=90", "+kokkos+cuda cuda_arch=90"),
                             ("kokkos~cuda~rocm", "+kokkos~cuda"), ("hdf5+mpi", "+mpi"), ("hdf5~mpi", "~mpi")]:
        if (dependency, when) not in depends:
            failures.append(f"no depends_on('{dependency}', when='{when}')")
    if not any(n == "conflicts" and a[0] == "+cuda" and k.get("when") == "+hip" for n, a, k in calls):
        failures.append("+cuda and +hip do not conflict")
    return failures


CHECKS = {"CompilesWithItsClassVariantsAndDependencies": compiles_with_its_class_variants_and_dependencies,
          "CmakeArgsFollowTheVariants": cmake_args_follow_the_variants}


def main():
    check, src = sys.argv[1], Path(sys.argv[2])
    failures = CHECKS[check](src / "packaging" / "spack" / "package.py", src)
    return verdict(check, failures)


if __name__ == "__main__":
    sys.exit(main())
