# The two commands of the README:
#   make run    install missing Debian packages, configure, build, run inputs/sod.toml into out/
#   make test   the same set-up, then the whole ctest suite
# Everything comes from Debian's packages; nothing is downloaded from anywhere else.

PRESET   ?= default
BUILD    := $(if $(filter default,$(PRESET)),build,build-$(PRESET))
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
DECK     ?= inputs/sod.toml
OUT      ?= out
PACKAGES := cmake make g++ pkg-config libtrilinos-kokkos-dev libhdf5-dev libgtest-dev \
            libtomlplusplus-dev libcli11-dev nlohmann-json3-dev

# apt-get needs root; use sudo when it is there and we are not root.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: all deps configure build run test verify clean

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

clean:
	rm -rf build build-debug build-kokkos4 out
