"""Scale-out: judging on Celery workers over Redis (task, dispatcher, event relay, registry, reaper, commands)."""
