"""Names shared by the web processes and the queue workers: queues, the task, Redis keys and channels."""

from __future__ import annotations

CPU, GPU = "cpu", "gpu"
QUEUES = (CPU, GPU)
TASK = "judge_submission"
EVENTS = "practice:events:"  # + submission id: published after each stored event (any web process streams it)
CANCEL = "practice:cancel"  # message: a submission id whose running judgement must stop
# Each prefix holds one kind of value only, so that a reader of one never meets another's (a probe once lived under
# the heartbeats' prefix, and reading it as a heartbeat raised):
WORKER = "practice:worker:"  # + worker name: its heartbeat (registry.WorkerInfo as JSON), with a TTL
PROBE = "practice:probe:"  # + worker name: a throwaway write that asks whether the broker takes writes again
REAPER = "practice:reaper:"  # + "lock": whose reaping pass is due; + "seen": what a pass suspects, since when
TALLY = "practice:tally:"  # + what: counters the workers keep for /metrics
