"""What crosses between the judge, its checker and its worker: payloads, frames, the probe protocol, reply checks.

Imports nothing of the judge's: every other part of judge/ may import it."""
