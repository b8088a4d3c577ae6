"""The anndata stacks the memory model targets, and the interpreter that
runs each: Debian's for anndata-0.8, a virtual environment made by
bench/runtimes/setup.sh (pins in bench/runtimes/NAME.txt) for the others."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
VENVS = os.path.join(HERE, "..", "out", "venvs")
RUNTIMES = ["anndata-0.8", "anndata-0.10", "anndata-0.11", "anndata-0.12", "anndata-0.12-pandas3", "anndata-0.13"]


def python_for(runtime):
    if runtime not in RUNTIMES:
        raise ValueError(f"unknown runtime {runtime!r} (known: {', '.join(RUNTIMES)})")
    if runtime == "anndata-0.8":
        return "/usr/bin/python3"
    python = os.path.join(VENVS, runtime, "bin", "python")
    if not os.path.exists(python):
        raise FileNotFoundError(f"{python}: run bench/runtimes/setup.sh {runtime}")
    return os.path.abspath(python)
