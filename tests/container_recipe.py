#!/usr/bin/env python3
"""The container recipe, packaging/container/Dockerfile, checked without building it (this
machine's Debian has podman and buildah, but no registry to pull debian:12 from: see
docs/install.md for the build that was made by hand).

    tests/container_recipe.py CHECK SOURCE_DIR

CHECK is one of:
  InstallsTheMakefilesPackages
      it starts from debian:12 and installs exactly the Makefile's PACKAGES (`make packages`)
      and git (for the commit in --version)
  BuildsTestsAndInstalls
      after copying the source it runs make build, make test and cmake --install, in that
      order; .dockerignore leaves out every path .gitignore names (a build tree copied in
      would carry another machine's CMake cache)

Exits 0 when the check holds, 1 naming what broke.
"""
import re
import subprocess
import sys
from pathlib import Path

from check_verdict import verdict

EXTRA = {"git"}  # beyond the Makefile's packages, and why: the commit that --version names


def instructions(dockerfile):
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", "\n".join(l for l in dockerfile.read_text().splitlines()
                                         if not l.lstrip().startswith("#")))
    return [(l.split(None, 1)[0].upper(), l.split(None, 1)[1] if " " in l.strip() else "")
            for l in text.splitlines() if l.strip()]


def installs_the_makefiles_packages(src, steps):
    failures = []
    if not steps or steps[0] != ("FROM", "debian:12"):
        failures.append(f"the first instruction is {steps[0] if steps else None}, not FROM debian:12")
    makefile = set(subprocess.run(["make", "-s", "--no-print-directory", "-C", str(src), "packages"],
                                  check=True, capture_output=True, text=True).stdout.split())
    if not makefile:
        failures.append("`make packages` printed no package")
    installed = set()
    for kind, args in steps:
        if kind == "RUN":
            for command in re.split(r"&&|;", args):
                words = command.split()
                if "apt-get" in words and "install" in words:
                    installed |= {w for w in words[words.index("install") + 1:] if not w.startswith("-")}
    if installed != makefile | EXTRA:
        failures.append(f"the recipe installs {sorted(installed - makefile - EXTRA)} beyond the Makefile's "
                        f"packages and {sorted(EXTRA)}, and lacks {sorted((makefile | EXTRA) - installed)}")
    return failures


def builds_tests_and_installs(src, steps):
    failures = []
    order = []
    for kind, args in steps:
        if kind == "COPY" and args.split() == [".", "."]:
            order.append("copy")
        if kind == "RUN":
            found = [(args.find(word), word) for word in ("make build", "make test", "cmake --install") if word in args]
            order += [word for _, word in sorted(found)]
    if order != ["copy", "make build", "make test", "cmake --install"]:
        failures.append(f"the recipe's steps are {order}, not copy, make build, make test, cmake --install")
    ignored = {l.strip().strip("/") for l in (src / ".dockerignore").read_text().splitlines()
               if l.strip() and not l.startswith("#")}
    for line in (src / ".gitignore").read_text().splitlines():
        pattern = line.strip().strip("/")
        if pattern and not pattern.startswith("#") and pattern not in ignored and f"**/{pattern}" not in ignored:
            failures.append(f".dockerignore does not leave out {line.strip()} (.gitignore does)")
    return failures


CHECKS = {"InstallsTheMakefilesPackages": installs_the_makefiles_packages,
          "BuildsTestsAndInstalls": builds_tests_and_installs}


def main():
    check, src = sys.argv[1], Path(sys.argv[2])
    failures = CHECKS[check](src, instructions(src / "packaging" / "container" / "Dockerfile"))
    return verdict(check, failures)


if __name__ == "__main__":
    sys.exit(main())
