"""The verdict of one named check of the Python checkers (container_recipe.py, plot_check.py,
spack_recipe.py): each failure on a line of its own, then one summary line; the exit code
ctest reads."""


def verdict(check, failures):
    for line in failures:
        print("FAIL:", line)
    print(f"{check}: {'ok' if not failures else f'{len(failures)} failure(s)'}")
    return 1 if failures else 0
