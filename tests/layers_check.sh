#!/usr/bin/env bash
# tools/check_layers.py on a small tree with one include of each forbidden kind: it must
# fail and name each file and line (the real tree's check is Layers.IncludesRunOneWay).
#   layers_check.sh PYTHON SOURCE_DIR
set -uo pipefail
python=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{app,io,kernels/contract,kernels/hip,kernels/kokkos,layouts,base}
printf '#include "app/config.hpp"\n' >"$work/io/deck.hpp"
printf '#include <vector>\n#include "app/backend.hpp"\n' >"$work/kernels/contract/backend.hpp"
printf '#include "kernels/kokkos/gpu.hpp"\n' >"$work/kernels/hip/memory.hpp"
printf '#include "kernels/hip/event_clock.hpp"\n' >"$work/kernels/kokkos/gpu.hpp"   # allowed
printf '#include <nlohmann/json.hpp>\n' >"$work/kernels/hip/probe.cpp"
printf '#include "kernels/stencil.hpp"\n#include "base/grid.hpp"\n' >"$work/layouts/layouts.hpp"  # the second allowed
printf '#include "base/portability.hpp"\n#include "layouts/layouts.hpp"\n' >"$work/base/grid.hpp"
printf '#include "io/deck.hpp"\n#include "kernels/hip/memory.hpp"\n' >"$work/app/main.cpp"  # allowed
"$python" "$src/tools/check_layers.py" "$work" >"$work/out"
code=$?
cat "$work/out"
failures=0
for want in "io/deck.hpp:1: includes \"app/config.hpp\"" "kernels/contract/backend.hpp:2: includes \"app/backend.hpp\"" \
            "kernels/hip/memory.hpp:1: includes \"kernels/kokkos/gpu.hpp\"" "kernels/hip/probe.cpp:1: includes <nlohmann/json.hpp>" \
            "layouts/layouts.hpp:1: includes \"kernels/stencil.hpp\"" "base/grid.hpp:2: includes \"layouts/layouts.hpp\"" \
            "6 include(s) against the layers"; do
  grep -qF "$want" "$work/out" || { echo "FAIL: not reported: $want"; failures=$((failures + 1)); }
done
[ "$code" = 1 ] || { echo "FAIL: exit $code, expected 1"; failures=$((failures + 1)); }
[ "$failures" = 0 ] && echo ok
