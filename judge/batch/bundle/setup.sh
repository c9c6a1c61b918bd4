#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image; this folder is /autograder/source.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3.11 python3.11-venv python3.11-dev gcc libseccomp-dev \
  || apt-get install -y --no-install-recommends python3 python3-venv python3-dev gcc libseccomp-dev
PYTHON="$(command -v python3.11 || command -v python3)"
"$PYTHON" -m venv /autograder/venv
/autograder/venv/bin/pip install --upgrade pip
# torch at the judge's pinned version, its CPU build: PyPI's Linux build bundles CUDA and is several GB, which
# Gradescope's CPU machines never use. TORCH_INDEX_URL: an index holding that CPU build (PyTorch's own, as its
# install page gives it, unless you set another, e.g. your institution's mirror), then the judge itself.
TORCH_INDEX_URL="${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}"
/autograder/venv/bin/pip install "torch==2.13.0" --index-url "$TORCH_INDEX_URL"
/autograder/venv/bin/pip install /autograder/source "nbformat>=5.9"  # nbformat: a notebook submitted (.ipynb)
