"""A problem folder (loading, statements, declarations, tiers, `judge check`); imports report, errors, settings."""
