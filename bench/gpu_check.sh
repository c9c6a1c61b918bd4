#!/usr/bin/env bash
# On a host with an NVIDIA GPU: exercise 107's GPU tier and the docker runners, with results printed.
#   bash bench/gpu_check.sh            builds gpu-runner, judges 107 through it (and 100 through the CPU runner)
#   GPU_CHECK_DOCKER=0 bash bench/gpu_check.sh   no docker here: the GPU tier on this host's own CUDA (gpu-local)
# TORCH_INDEX_URL: a package index with CUDA-enabled torch==2.13.0 (required to build the gpu-runner image).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python}
nvidia-smi -L || { echo "no NVIDIA GPU visible: nothing to check"; exit 2; }
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
if [ "${GPU_CHECK_DOCKER:-1}" = 1 ]; then
  start=$(date +%s)
  docker build --target gpu-runner --build-arg TORCH_INDEX_URL="${TORCH_INDEX_URL:?set TORCH_INDEX_URL to an index with CUDA-enabled torch==2.13.0}" \
    -t practice-judge:gpu-runner .
  echo "gpu-runner image built in $(( $(date +%s) - start ))s"
  export PRACTICE_GPU_RUNNER=docker PRACTICE_GPU_IMAGE=practice-judge:gpu-runner PRACTICE_GPU_DEVICES='["0"]'
else
  export PRACTICE_GPU_RUNNER=local
fi
"$PY" -m judge.cli doctor --no-live 2>/dev/null | sed -n '/runners/,$p' || true
for problem in 107; do
  start=$(date +%s)
  status=0
  "$PY" -m judge.cli check "$problem" || status=$?
  echo "judge check $problem (GPU tier on $PRACTICE_GPU_RUNNER): exit $status in $(( $(date +%s) - start ))s"
done
"$PY" practice/judge.py 107 problems/107-*/solutions/reference.py --json --lang en | "$PY" -c \
  'import json,sys; r=json.load(sys.stdin); print("107 reference:", r["verdict"], r["tiers"], r["passed"], "/", r["total"])'
if [ "${GPU_CHECK_DOCKER:-1}" = 1 ]; then
  "$PY" -m judge.cli image build && PRACTICE_SANDBOX=docker "$PY" -m judge.cli check 100
fi
