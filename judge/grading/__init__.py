"""One judgement from source to report: passes over runners, the checker's log, decisions, stuck lines, traces.

Imports the checker, runners, problem, report and wire; the front ends (service, cli, batch, queue) import it."""
