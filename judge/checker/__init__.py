"""The trusted side: runs pytest over a problem's tests and talks to the worker through probes."""
