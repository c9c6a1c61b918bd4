"""The judging queue below its front ends (the web service, `judge grade --queue`): the submission store it writes,
Celery app, dispatcher, worker runtime, event relay, registry, reaper, status and their commands."""
