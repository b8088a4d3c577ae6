#!/usr/bin/env bash
# Creates one virtual environment per modelled anndata stack under
# bench/out/venvs/NAME, from bench/runtimes/NAME.txt (pinned versions).
# anndata-0.8 is Debian's: /usr/bin/python3 with python3-anndata.
#   bench/runtimes/setup.sh [NAME...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../out/venvs"
mkdir -p "$out"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(anndata-0.10 anndata-0.11 anndata-0.12 anndata-0.12-pandas3 anndata-0.13)
for name in "${names[@]}"; do
  if [ ! -x "$out/$name/bin/python" ] || ! cmp -s "$here/$name.txt" "$out/$name/requirements.txt"; then
    rm -rf "$out/$name"
    python=python3
    if [ "$name" = anndata-0.13 ]; then  # needs Python >= 3.12
      "$here/build-python.sh"
      python="$here/../out/python3.13/bin/python3.13"
    fi
    "$python" -m venv "$out/$name"
    "$out/$name/bin/pip" install --quiet --disable-pip-version-check -r "$here/$name.txt"
    cp "$here/$name.txt" "$out/$name/requirements.txt"
  fi
  echo "$name: $("$out/$name/bin/python" -c 'import anndata, pandas, numpy, h5py; print("anndata", anndata.__version__, "pandas", pandas.__version__, "numpy", numpy.__version__, "h5py", h5py.__version__)')"
done
