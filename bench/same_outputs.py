#!/usr/bin/python3
"""Checks that a change left every output alone: `size` and `inspect --json`
of two builds on the same files, and (with --remote) each file read locally
against the same file served by nginx on 127.0.0.1, for the new build.

    /usr/bin/python3 bench/same_outputs.py --before OLD_BINARY [--after build/h5ad-sizer] [--remote]
                                          [--runtimes anndata-0.8,anndata-0.12-pandas3] [FILE_OR_DIR ...]

Files: by default the calibration corpus (bench/out/corpus), the benchmark
files in bench/out, ../shared/corpus/real and data/ (every *.h5ad, the broken
fixtures included: their error lines and exit statuses are compared too).
`size --stats` is not used: requests and seconds are allowed to differ.
A remote run's source names its URL, so local and remote outputs are
compared with the source name replaced. Prints one line per difference and a
count; exits 1 when anything differs.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def default_files():
    places = [os.path.join(HERE, "out", "corpus"), os.path.join(HERE, "out"),
              os.path.join(ROOT, "..", "shared", "corpus", "real"), os.path.join(ROOT, "data")]
    files = []
    for place in places:
        if not os.path.isdir(place):
            continue
        for name in sorted(os.listdir(place)):
            if name.endswith(".h5ad") and os.path.isfile(os.path.join(place, name)):
                files.append(os.path.join(place, name))
    return files


def expand(arguments):
    files = []
    for argument in arguments:
        if os.path.isdir(argument):
            files += [os.path.join(argument, n) for n in sorted(os.listdir(argument)) if n.endswith(".h5ad")]
        else:
            files.append(argument)
    return files


def run(tool, command, source, runtime):
    """(exit status, stdout, stderr) of one command, the source's own name
    taken out so that a path and a URL compare equal."""
    arguments = [tool, command, source, "--runtime", runtime]
    if command == "inspect":
        arguments.append("--json")
    result = subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace")
    return (result.returncode, result.stdout.replace(source, "SOURCE"),
            re.sub(r"^h5ad-sizer: ", "", result.stderr.replace(source, "SOURCE")))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--before", help="the build to compare with (same files, same commands)")
    p.add_argument("--after", default=os.path.join(ROOT, "build", "h5ad-sizer"))
    p.add_argument("--remote", action="store_true", help="also compare local against nginx for --after")
    p.add_argument("--runtimes", default="anndata-0.8,anndata-0.12-pandas3")
    p.add_argument("files", nargs="*")
    a = p.parse_args()
    if not a.before and not a.remote:
        p.error("nothing to compare: give --before, --remote or both")
    files = expand(a.files) if a.files else default_files()
    runtimes = a.runtimes.split(",")
    compared = 0
    differences = 0

    def compare(label, left, right):
        nonlocal compared, differences
        compared += 1
        if left != right:
            differences += 1
            what = "exit status" if left[0] != right[0] else "stdout" if left[1] != right[1] else "stderr"
            print(f"DIFFERENT {label}: {what}", flush=True)

    served = {}
    server = None
    if a.remote:
        # nginx serves a folder of links to the files, each under its index.
        from remote import serve_root
        links = tempfile.mkdtemp(prefix="h5ad-same-")
        for i, path in enumerate(files):
            os.symlink(os.path.abspath(path), os.path.join(links, f"{i}.h5ad"))
        server = serve_root(links)
        port, _ = server.__enter__()
        served = {path: f"http://127.0.0.1:{port}/{i}.h5ad" for i, path in enumerate(files)}
    try:
        for path in files:
            for command in ("size", "inspect"):
                for runtime in runtimes:
                    after = run(a.after, command, path, runtime)
                    label = f"{command} {runtime} {path}"
                    if a.before:
                        compare(f"{label} (before/after)", run(a.before, command, path, runtime), after)
                    if a.remote:
                        compare(f"{label} (local/remote)", after, run(a.after, command, served[path], runtime))
    finally:
        if server:
            server.__exit__(None, None, None)
    print(f"{compared} pairs compared over {len(files)} files, {differences} different")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
