"""What runs inside the sandbox: import the learner's file, then answer probe calls."""
