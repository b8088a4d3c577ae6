"""Every GoogleTest suite in the unit-test binary has its ctest test.

tests/CMakeLists.txt registers one ctest test per suite, finding the suites
in the sources; a suite written some other way would silently not run.
    check_suites.py BINARY SUITE...
"""
import subprocess
import sys


def main():
    binary, registered = sys.argv[1], set(sys.argv[2:])
    listing = subprocess.run([binary, "--gtest_list_tests"], check=True, capture_output=True, text=True).stdout
    # Suites are the unindented lines ending in a dot, "Suite." (comments
    # after '#'); gtest_main prints a line of its own first.
    held = set()
    for line in listing.splitlines():
        name = line.split("#")[0].rstrip()
        if name and not line.startswith(" ") and name.endswith("."):
            held.add(name[:-1])
    missing = sorted(held - registered)
    if missing:
        print("suites without a ctest test (tests/CMakeLists.txt): " + ", ".join(missing))
        return 1
    print(f"{len(held)} suites, each a ctest test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
