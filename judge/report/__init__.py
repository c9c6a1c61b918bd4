"""What a judgement says (report model, events, op trace words, the catalogue); imports only sandbox's facts."""
