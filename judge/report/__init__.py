"""What a judgement says: the report model, events, the op trace's words, the catalogue of texts in both languages.

Imports judge.wire only (and sandbox's facts); everything above it speaks through it."""
