# Targets:
#   service     the whole app (CLI, web service, problems) on CPU:  docker build --target service -t practice-judge .
#   gpu-runner  a worker zygote with CUDA-enabled torch, one container per GPU (see README):
#               docker build --target gpu-runner -t practice-judge:gpu-runner .
# Build arguments:
#   BASE             base image with apt (Debian or Ubuntu). Offline, the one `judge image build` made:
#                    --build-arg BASE=$(docker images -q practice-judge/base | head -1)
#   TORCH_INDEX_URL  where torch==2.13.0 comes from: the CPU index for service, a CUDA index for gpu-runner;
#                    "" for PyPI only. A folder of wheels instead (offline): put them in .whl/ of the build
#                    context (git ignores it); pip looks there first.
#   PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_TRUSTED_HOST   pip's own settings, for a mirror or an intercepting proxy
# Plain `docker build` (no BuildKit features), so the docker SDK's builder and an offline engine build it too.
ARG BASE=debian:bookworm-slim

FROM ${BASE} AS python-app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:/usr/local/bin:/usr/bin:/bin HOME=/tmp USER=judge
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/* && python3 -m venv /opt/venv \
    && (getent passwd 10001 || (echo 'judge:x:10001:10001:judge:/tmp:/usr/sbin/nologin' >> /etc/passwd \
        && echo 'judge:x:10001:' >> /etc/group))
WORKDIR /app
COPY pyproject.toml README.md ./
COPY judge judge
COPY sandbox sandbox

# torch and the judge's dependencies in /opt/venv; the wheels folder stays in this stage only.
FROM python-app AS deps-cpu
ARG PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST
ARG TORCH_INDEX_URL=
COPY pyproject.toml .wh[l] /wheels/
RUN pip install --find-links /wheels ${TORCH_INDEX_URL:+--extra-index-url $TORCH_INDEX_URL} torch==2.13.0 \
    && pip install --find-links /wheels '.[triton,scale,grade]' && pip uninstall -y practice-judge

FROM python-app AS deps-gpu
ARG PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST
# Required on GPU hosts: a package index (or --find-links wheels in .whl/) with CUDA-enabled torch==2.13.0.
ARG TORCH_INDEX_URL=
COPY pyproject.toml .wh[l] /wheels/
RUN pip install --find-links /wheels ${TORCH_INDEX_URL:+--extra-index-url $TORCH_INDEX_URL} torch==2.13.0 \
    && pip install --find-links /wheels '.[triton,scale]' && pip uninstall -y practice-judge

FROM python-app AS service
COPY --from=deps-cpu /opt/venv /opt/venv
COPY web web
COPY practice practice
COPY problems problems
RUN pip install --no-deps --no-build-isolation -e .
USER 10001:10001
EXPOSE 8000
CMD ["judge", "serve", "--host", "0.0.0.0", "--port", "8000"]

FROM python-app AS gpu-runner
# What the pinned Triton needs at run time (3.9.0, the one torch==2.13.0's CUDA wheel requires; checked in
# triton/backends/nvidia/driver.py and runtime/build.py): on its first use of the GPU it builds ONE C module,
# cuda_utils (driver.c, which holds the generic launcher every kernel goes through), with the C compiler
# ($CC, else gcc), Python.h of this interpreter and -l:libcuda.so.1 (found through /sbin/ldconfig -p: the
# NVIDIA container toolkit mounts the driver's library and refreshes the cache when the container starts).
# It caches the .so in TRITON_CACHE_DIR, the job's scratch, and loads it from there: so GPU jobs get an exec
# scratch and this image keeps gcc, libc6-dev and python3-dev. Kernels themselves need no compiler: ptxas
# ships in the wheel and the driver loads each cubin from memory. bench/gpu_check.sh reports which launcher
# the installed Triton has ("launcher built at run time"), and the canary (judge/runners/canary.py) builds it.
# The learner's code may not use the compiler: the worker's guard refuses subprocess, ctypes and dlopen
# (docs/threat-model.md, "The GPU tier"). util-linux's ipcrm and coreutils' timeout serve the runner itself.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev python3-dev util-linux \
    && rm -rf /var/lib/apt/lists/*
COPY --from=deps-gpu /opt/venv /opt/venv
# The worker needs judge/ and sandbox/ only: never the problems (hidden tests stay with the checker on the host).
ENV PYTHONPATH=/app
LABEL practice-judge.role=gpu-runner
# The runner starts it as root with a few capabilities (sandbox/docker.py WALLS_CAPS) so that each job gets
# a uid of its own (65534) and pid, ipc, uts and network namespaces; USER is the fallback for a plain run.
USER 10001:10001
ENTRYPOINT ["python", "-m", "sandbox.listen"]
CMD ["--socket", "/pj/run/zygote.sock"]
