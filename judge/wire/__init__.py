"""What crosses between judge, checker and worker (payloads, frames, protocol, replies); imports nothing of judge."""
