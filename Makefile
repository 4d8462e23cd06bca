# The two commands of the README:
#   make run    install missing Debian packages, configure, build, run inputs/sod.toml into out/
#   make test   the same set-up, then the whole ctest suite
#   make plots  the machine's probe, a strategy sweep on every core and their pictures into out/lab/plots
# Everything comes from Debian's packages; nothing is downloaded from anywhere else.

PRESET   ?= default
BUILD    := $(if $(filter default,$(PRESET)),build,build-$(PRESET))
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
DECK     ?= inputs/sod.toml
OUT      ?= out
SHELL    := /bin/bash
PACKAGES := cmake make g++ pkg-config libtrilinos-kokkos-dev libhdf5-dev libgtest-dev \
            libtomlplusplus-dev libcli11-dev nlohmann-json3-dev \
            libopenmpi-dev openmpi-bin libhdf5-openmpi-dev python3-matplotlib python3-h5py

# apt-get needs root; use sudo when it is there and we are not root.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: all deps configure build run test verify clean plots format format-check

all: build

# Installs only what is missing, so a prepared machine does not touch the network.
deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:" $$missing; \
	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y $$missing; \
	fi

configure: deps
	cmake --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET) -j $(JOBS)

run: build
	$(BUILD)/bin/halocline run $(DECK) --out $(OUT)

test: build
	ctest --preset $(PRESET) -j $(JOBS)

verify: build
	$(BUILD)/bin/halocline verify

# The teaching lab's pictures on this machine (docs/lab.md, "On a CPU"): the probe, then a
# layout x precision sweep of bench.toml with every core busy (one MPI rank per core:
# Debian's Kokkos is Serial) on a grid whose state outgrows the last-level cache (PLOT_N:
# from 128 up in steps of 32 until the three state arrays in fp64, 3 x (n+4)^3 x 5 x 8
# bytes, exceed the last-level cache that tools/llc_bytes.sh and `halocline info` report),
# and the timeline of the baseline's step,
# into OUT/lab/plots. Open MPI wants to be told that root may run it.
PLOT_RANKS ?= $(JOBS)
PLOT_N ?= $(shell l3=$$(tools/llc_bytes.sh); n=128; \
            while [ $$((3 * (n + 4) * (n + 4) * (n + 4) * 40)) -le $${l3:-0} ]; do n=$$((n + 32)); done; echo $$n)
MPIRUN_AS_ROOT := $(if $(filter 0,$(shell id -u)),OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
plots: build
	$(BUILD)/bin/halocline probe --out $(OUT)/lab
	$(MPIRUN_AS_ROOT) mpirun -n $(PLOT_RANKS) $(BUILD)/bin/halocline bench inputs/bench.toml --set grid.n=$(PLOT_N) \
	  --sweep layout=aos,soa,aosoa --sweep precision=fp64,fp32 --repeat 3 --steps 3 \
	  --baseline layout=aos,precision=fp64 --out $(OUT)/lab --plot

# The Debian packages above, on one line (tests/container_recipe.py compares the
# container recipe's list with it).
.PHONY: packages
packages:
	@echo $(PACKAGES)

clean:
	rm -rf build build-debug build-kokkos4 build-kokkos-gpu build-kokkos-hip build-hip-nvidia build-hip-amd build-asan build-fuzz out

# The code's one style (.clang-format; Debian's clang-format): `make format` applies it,
# `make format-check` (CI) fails naming each file that is not in it.
FORMAT_FILES = $(shell git ls-files '*.cpp' '*.hpp')
format:
	@command -v clang-format >/dev/null || { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y clang-format; }
	clang-format -i $(FORMAT_FILES)
format-check:
	@command -v clang-format >/dev/null || { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y clang-format; }
	clang-format --dry-run --Werror $(FORMAT_FILES)
	@echo "format-check: $(words $(FORMAT_FILES)) files in the style of .clang-format"

# Hardened input and memory safety (CI runs both):
#   make fuzz       the deck fuzzer (libFuzzer, clang) for FUZZ_SECONDS, seeded with inputs/;
#                   a crash is saved under build-fuzz/ and fails the target (add it to
#                   tests/fuzz/regressions/)
#   make sanitize   the whole CPU test suite built with AddressSanitizer + UBSan
FUZZ_SECONDS ?= 60
.PHONY: fuzz sanitize
fuzz: deps
	@command -v clang++ >/dev/null || { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y clang libclang-rt-14-dev; }
	cmake -S tests/fuzz -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release
	cmake --build build-fuzz -j $(JOBS)
	rm -rf build-fuzz/corpus && mkdir -p build-fuzz/corpus && cp inputs/*.toml tests/fuzz/regressions/* build-fuzz/corpus/
	build-fuzz/deck_fuzzer -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=build-fuzz/crash- \
	  build-fuzz/corpus 2>&1 | tee build-fuzz/fuzz.log | grep -E "^#[0-9]+ +DONE|Done [0-9]+ runs|ERROR|crash-" ; \
	  test $${PIPESTATUS[0]} -eq 0

# Leak detection is off for the libraries' process-lifetime allocations. hwloc's PCI
# discovery is off: under ASan its realloc-heavy reading of the PCI database made every
# MPI process take 6-14 s to start (0.5 s without it); Halocline does not use it. (The
# build runs the test binaries too, to list their tests.)
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
                 HWLOC_COMPONENTS=-pci
sanitize: deps
	cmake --preset asan
	$(SANITIZER_ENV) cmake --build --preset asan -j $(JOBS)
	$(SANITIZER_ENV) ctest --preset asan -j $(JOBS)

# Compile-and-link checks of the GPU backends on a machine without a GPU (CI): the
# hip-nvidia preset where nvcc is installed, the hip-amd preset where Debian's hipcc can be
# installed (its clang 15 knows gfx90a, not gfx942). Their test suites run on the CPU
# backend; the GPU tests skip, saying there is no GPU.
NVCC     ?= /usr/local/cuda/bin/nvcc
KOKKOS_GPU_ROOT ?=
KOKKOS_HIP_ROOT ?=
HIP_PACKAGES := hipcc libamdhip64-dev

.PHONY: gpu-builds
gpu-builds: deps
	@if [ -x "$(NVCC)" ]; then \
	  echo "== hip-nvidia: nvcc at $(NVCC)"; \
	  cmake --preset hip-nvidia -DCMAKE_CUDA_COMPILER=$(NVCC) && \
	  cmake --build --preset hip-nvidia -j $(JOBS) && \
	  ctest --preset hip-nvidia -j $(JOBS) || exit 1; \
	  $(NVCC) -std=c++17 -O3 -arch=sm_90 -I. -x cu tools/gpu/fast_roots_check.cpp \
	    -o build-hip-nvidia/fast_roots_check || exit 1; \
	  build-hip-nvidia/bin/halocline_tests --gtest_filter='Gpu.*' | grep -A1 -m1 ': Skipped' || true; \
	else echo "== hip-nvidia: skipped, no nvcc at $(NVCC)"; fi
	@missing=$$(for p in $(HIP_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:" $$missing; \
	  ( $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y $$missing ) >/dev/null 2>&1 || \
	    echo "could not install $$missing"; \
	fi; \
	if command -v hipcc >/dev/null 2>&1; then \
	  echo "== hip-amd: hipcc, GPU_TARGETS=gfx90a"; \
	  cmake --preset hip-amd -DGPU_TARGETS=gfx90a && \
	  cmake --build --preset hip-amd -j $(JOBS) && \
	  ctest --preset hip-amd -j $(JOBS) || exit 1; \
	  build-hip-amd/bin/halocline_tests --gtest_filter='Gpu.*' | grep -A1 -m1 ': Skipped' || true; \
	else echo "== hip-amd: skipped, hipcc could not be installed"; fi
	@if [ -n "$(KOKKOS_GPU_ROOT)" ]; then \
	  echo "== kokkos-gpu: Kokkos at $(KOKKOS_GPU_ROOT), compile and link (its tests need the GPU)"; \
	  Kokkos_ROOT=$(KOKKOS_GPU_ROOT) cmake --preset kokkos-gpu -DCMAKE_CUDA_COMPILER=$(NVCC) && \
	  cmake --build --preset kokkos-gpu -j $(JOBS) || exit 1; \
	else echo "== kokkos-gpu: skipped, KOKKOS_GPU_ROOT not set (a Kokkos install built for the GPU, docs/kokkos.md)"; fi
	@if [ -n "$(KOKKOS_HIP_ROOT)" ]; then \
	  echo "== kokkos-hip: Kokkos at $(KOKKOS_HIP_ROOT), compile and link the program (its tests need an AMD GPU)"; \
	  Kokkos_ROOT=$(KOKKOS_HIP_ROOT) cmake --preset kokkos-hip && \
	  cmake --build --preset kokkos-hip -j $(JOBS) --target halocline || exit 1; \
	else echo "== kokkos-hip: skipped, KOKKOS_HIP_ROOT not set (a Kokkos 4 install with its HIP backend, docs/kokkos.md)"; fi
