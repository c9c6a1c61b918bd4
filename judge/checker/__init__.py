"""The trusted side: pytest over a problem's tests, probes through the channel; imports problem, report, wire."""
