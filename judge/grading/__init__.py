"""One judgement from source to report (passes, pairs, decisions, traces); imports checker, runners and below."""
