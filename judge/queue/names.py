"""Names shared by the web processes and the queue workers: queues, the task, Redis keys and channels."""

from __future__ import annotations

CPU, GPU = "cpu", "gpu"
QUEUES = (CPU, GPU)
TASK = "judge_submission"
EVENTS = "practice:events:"  # + submission id: published after each stored event (any web process streams it)
CANCEL = "practice:cancel"  # message: a submission id whose running judgement must stop
WORKER = "practice:worker:"  # + worker name: a hash with a TTL, refreshed while the worker lives
TALLY = "practice:tally:"  # + what: counters the workers keep for /metrics
