#!/usr/bin/env python3
"""Checks that Halocline's layers depend on each other one way only (docs/design.md):

    app/  ->  io/  ->  kernels/ (physics, contract, backends)  ->  layouts/  ->  base/

Each project include ("dir/file.hpp") of a source file must lie in the file's own layer or
one below it, and JSON (nlohmann) belongs to app/ alone. Within kernels/:
  - kernels/contract/ (the backend contract) includes the contract, the physics, layouts/ and base/;
  - kernels/*.hpp (the physics, written once) include the physics, layouts/ and base/;
  - kernels/hip/ includes itself, the contract, the physics, layouts/ and base/;
  - kernels/kokkos/ includes the same, and kernels/hip/ (its GPU runtime and event clock, on a
    GPU build): the one place one backend uses another.
The base headers (base/: portability.hpp, grid.hpp, host_parallel.hpp) include nothing of
the project but each other. tests/ and tools/ may include anything.

Prints one line per break, "file:line: includes X: <rule>", and exits 1 if there is any.
    tools/check_layers.py [SOURCE_DIR]
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def layer(path):
    """The layer of a project file, by its path relative to the source root."""
    top = path.split("/")[0]
    if top in ("app", "io", "layouts", "base"):
        return top
    if top == "kernels":
        parts = path.split("/")
        if len(parts) == 2:
            return "physics"
        return "kernels/" + parts[1]  # contract, hip, kokkos
    return None  # tests, tools, build files: not checked


# What each layer may include, besides itself.
ALLOWED = {
    "app": {"io", "kernels/contract", "kernels/hip", "kernels/kokkos", "physics", "layouts", "base"},
    "io": {"kernels/contract", "physics", "layouts", "base"},
    "kernels/contract": {"physics", "layouts", "base"},
    "kernels/hip": {"kernels/contract", "physics", "layouts", "base"},
    "kernels/kokkos": {"kernels/hip", "kernels/contract", "physics", "layouts", "base"},
    "physics": {"layouts", "base"},
    "layouts": {"base"},
    "base": set(),
}


def breaks(root):
    for source in sorted(root.rglob("*")):
        if source.suffix not in (".hpp", ".cpp", ".h", ".in") or not source.is_file():
            continue
        rel = source.relative_to(root).as_posix()
        if rel.startswith("build") or rel.startswith("."):
            continue
        mine = layer(rel)
        if mine is None:
            continue
        for number, line in enumerate(source.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            bracket, target = match.groups()
            if target.startswith("nlohmann/") and mine != "app":
                yield f"{rel}:{number}: includes <{target}>: JSON belongs to app/ alone"
                continue
            if bracket != '"':
                continue
            theirs = layer(target)
            if theirs is None or theirs == mine or theirs in ALLOWED[mine]:
                continue
            yield (f"{rel}:{number}: includes \"{target}\": {mine} may include "
                   f"{', '.join(sorted(ALLOWED[mine])) or 'nothing of the project'}, not {theirs}")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent).resolve()
    found = list(breaks(root))
    for line in found:
        print(line)
    if found:
        print(f"check_layers: {len(found)} include(s) against the layers (docs/design.md)")
        return 1
    print("check_layers: every include runs one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
