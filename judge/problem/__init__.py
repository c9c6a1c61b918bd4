"""A problem folder: loading and validating it, its statement, declarations, tiers, and `judge check`'s proofs.

Imports judge.report and the root's errors and settings; never grading, checker or worker."""
