# syntax=docker/dockerfile:1
# Targets:
#   service     the whole app (CLI, web service, problems) on CPU:  docker build --target service -t practice-judge .
#   gpu-runner  a worker zygote with CUDA-enabled torch, run one container per GPU (see README):
#               docker build --target gpu-runner -t practice-judge:gpu-runner .
# Build arguments:
#   BASE             base image with apt (Debian/Ubuntu); offline, use the one `judge image build` made
#   TORCH_INDEX_URL  where torch==2.13.0 comes from (service: the CPU index; gpu-runner: a CUDA index)
#   a folder of wheels instead: docker buildx build --build-context torch-wheels=/path/to/wheels ...
#                    (with TORCH_INDEX_URL="" the build uses only those wheels for torch)
ARG BASE=debian:bookworm-slim

FROM scratch AS torch-wheels

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

FROM python-app AS service
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
COPY web web
COPY practice practice
COPY problems problems
RUN --mount=type=bind,from=torch-wheels,target=/wheels \
    pip install --find-links /wheels ${TORCH_INDEX_URL:+--extra-index-url ${TORCH_INDEX_URL}} torch==2.13.0 \
    && pip install -e '.[triton]'
USER 10001:10001
EXPOSE 8000
CMD ["judge", "serve", "--host", "0.0.0.0", "--port", "8000"]

FROM python-app AS gpu-runner
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cu128
# Triton compiles its launcher with a C compiler when a kernel first runs on the GPU.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
RUN --mount=type=bind,from=torch-wheels,target=/wheels \
    pip install --find-links /wheels ${TORCH_INDEX_URL:+--extra-index-url ${TORCH_INDEX_URL}} torch==2.13.0 \
    && pip install '.[triton]'
# The worker needs judge/ and sandbox/ only: never the problems (hidden tests stay with the checker on the host).
ENV PYTHONPATH=/app
LABEL practice-judge.role=gpu-runner
USER 10001:10001
ENTRYPOINT ["python", "-m", "sandbox.listen"]
CMD ["--socket", "/pj/run/zygote.sock"]
