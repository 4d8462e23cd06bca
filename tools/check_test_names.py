#!/usr/bin/env python3
"""Every GoogleTest suite is named after the file it is written in, so that a failing
test's name says where to look: the suites of tests/test_exact_riemann.cpp start with
ExactRiemann, those of tests/test_output_failures.cpp with OutputFailures.

  tools/check_test_names.py [ROOT]

Prints one line per suite that breaks the rule (file:line: suite, the prefix it needs) and
exits 1; exits 0 when every suite follows it.
"""
import pathlib
import re
import sys

# The suite is the first argument of these macros.
SUITE = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_SUITE|TYPED_TEST_P|"
                   r"REGISTER_TYPED_TEST_SUITE_P)\(\s*(\w+)")
# ... and the second of an instantiation (the first is the instantiation's own prefix).
INSTANTIATION = re.compile(r"^\s*INSTANTIATE_(?:TYPED_)?TEST_SUITE_P\(\s*\w+\s*,\s*(\w+)")


def prefix_of(path):
    """test_exact_riemann.cpp -> ExactRiemann"""
    words = path.stem[len("test_"):].split("_")
    return "".join(w[:1].upper() + w[1:] for w in words)


def breaks(root):
    found = []
    for path in sorted((root / "tests").glob("test_*.cpp")):
        prefix = prefix_of(path)
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = SUITE.match(line) or INSTANTIATION.match(line)
            if m and not m.group(1).startswith(prefix):
                found.append(f"{path.relative_to(root)}:{number}: suite {m.group(1)} does not start with {prefix}")
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    found = breaks(root)
    for line in found:
        print(line)
    if not any((root / "tests").glob("test_*.cpp")):
        print(f"{root}/tests: no test files found")
        return 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
