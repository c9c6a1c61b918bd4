"""Inside the sandbox: import the learner's file, guard, answer probes; imports report, wire and sandbox only."""
