#!/usr/bin/env bash
# The GPU tier on a host with an NVIDIA GPU, in one ten-minute window (steps in bench/gpu_check.py).
#   bash bench/gpu_check.sh prepare   BEFORE the window, untimed: builds the gpu-runner image (CUDA torch from
#                                     TORCH_INDEX_URL, or wheels carried in .whl/) and the CPU runner image,
#                                     and installs carried wheels (.whl/) into this interpreter if it lacks torch
#   bash bench/gpu_check.sh           the window: every step has its own timeout, a failed step does not stop
#                                     the rest, and a step that would start past the window is recorded skipped
# Writes $OUT/summary.json (host, every step's JSON) and $OUT/table.txt (printed at the end); each step's
# full output is in $OUT/STEP-RUNNER.log. Exit 0 when every step that ran passed.
#   GPU_CHECK_DOCKER=auto|0|1  also through the gpu-docker runner (auto: when docker and the toolkit answer)
#   PY=...                     another interpreter: a torch other than 2.13.0 is labelled OFF-PIN in every row
#   GPU_CHECK_BUDGET_S=600     the window; OUT=bench/out/gpu_check
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python}
OUT=${OUT:-bench/out/gpu_check}
BUDGET_S=${GPU_CHECK_BUDGET_S:-600}
IMAGE=${PRACTICE_GPU_IMAGE:-practice-judge:gpu-runner}

if [ "${1:-}" = prepare ]; then
  set -e
  if ! "$PY" -c 'import torch' 2>/dev/null && ls .whl/*.whl >/dev/null 2>&1; then
    "$PY" -m pip install --no-index --find-links .whl torch==2.13.0 triton
  fi
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    docker build --target gpu-runner ${TORCH_INDEX_URL:+--build-arg TORCH_INDEX_URL="$TORCH_INDEX_URL"} -t "$IMAGE" .
    "$PY" -m judge.cli image build
  else
    echo "no docker engine: only the local GPU runner will be checked"
  fi
  exit 0
fi

mkdir -p "$OUT"
: > "$OUT/steps.jsonl"
start=$(date +%s)
docker_ok=0
case "${GPU_CHECK_DOCKER:-auto}" in
  1) docker_ok=1 ;;
  auto) if command -v docker >/dev/null && docker info 2>/dev/null | grep -qi nvidia \
        && docker image inspect "$IMAGE" >/dev/null 2>&1; then docker_ok=1; fi ;;
esac

step() {  # step NAME RUNNER TIMEOUT_S
  local name=$1 runner=$2 limit=$3 left log line rc t0
  left=$(( BUDGET_S - ($(date +%s) - start) ))
  [ "$name" = post ] || left=$(( left - 20 ))  # the postconditions always keep their 20 s
  log="$OUT/$name-$runner.log"
  if (( left < 15 )); then
    printf '{"step":"%s","runner":"%s","ok":null,"summary":"skipped: the %ss window is spent"}\n' \
      "$name" "$runner" "$BUDGET_S" >> "$OUT/steps.jsonl"
    return
  fi
  (( limit > left )) && limit=$left
  t0=$(date +%s)
  echo "== $name ($runner, at most ${limit}s)" >&2
  if [ "$runner" = docker ]; then
    PRACTICE_GPU_RUNNER=docker PRACTICE_GPU_IMAGE=$IMAGE timeout --kill-after=10 "$limit" \
      "$PY" bench/gpu_check.py "$name" --runner docker > "$log" 2>&1
  else
    PRACTICE_GPU_RUNNER=local timeout --kill-after=10 "$limit" "$PY" bench/gpu_check.py "$name" --runner local \
      > "$log" 2>&1
  fi
  rc=$?
  line=$(grep '^{"step"' "$log" | tail -1)
  if [ -z "$line" ]; then
    line=$(printf '{"step":"%s","runner":"%s","ok":false,"summary":"exit %s%s; see %s"}' "$name" "$runner" "$rc" \
      "$( [ "$rc" = 124 ] || [ "$rc" = 137 ] && echo " (its ${limit}s timeout)")" "$log")
  fi
  "$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); d["s"]=int(sys.argv[2]); print(json.dumps(d))' \
    "$line" "$(( $(date +%s) - t0 ))" >> "$OUT/steps.jsonl"
}

# Most telling first: a step that would start past the window is recorded as skipped, not run. Each mode's
# timeouts add up to 585 s (the window less a margin), so no step is skipped for time unless one hangs. With
# docker, the attacks and the two-at-once judgements run through the docker runner (the one a GPU host serves
# with) and not again through the local one.
if (( docker_ok )); then
  step facts local 20; step fork local 40; step exercise local 90; step layers local 80; step walls local 25
  step exercise docker 100; step walls docker 25; step attacks docker 140; step concurrent docker 50
else
  step facts local 20; step fork local 40; step exercise local 110; step layers local 110; step walls local 40
  step attacks local 180; step concurrent local 70
fi
step post local 15

"$PY" - "$OUT" "$(( $(date +%s) - start ))" "$docker_ok" <<'EOF'
import json, sys
from pathlib import Path

out, seconds, docker = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
steps = [json.loads(line) for line in (out / "steps.jsonl").read_text().splitlines() if line.strip()]
summary = {"seconds": seconds, "docker": docker, "steps": steps}
(out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
mark = {True: "PASS", False: "FAIL", None: "SKIP"}
rows = [("step", "runner", "result", "s", "torch", "summary")]
rows += [(s["step"], s["runner"], mark[s.get("ok")], str(s.get("s", "-")), s.get("pin", "?"), s.get("summary", "")[:150])
         for s in steps]
for s in steps:  # the sub-tables: which layer breaks CUDA, each attack, each wall
    for row in s.get("rows", []):
        rows.append(("  " + s["step"], s["runner"], "", "", "", json.dumps(row, ensure_ascii=False, default=str)[:150]))
    for name, good in s.get("checks", {}).items():
        rows.append(("  " + s["step"], s["runner"], "PASS" if good else "FAIL", "", "", name))
widths = [max(len(r[i]) for r in rows) for i in range(5)]
table = "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows)
table += f"\n\n{seconds}s in all; docker {'checked' if docker else 'not checked'}; {out / 'summary.json'}"
(out / "table.txt").write_text(table + "\n")
print(table)
sys.exit(0 if all(s.get("ok") is not False for s in steps) else 1)
EOF
