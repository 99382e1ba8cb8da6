"""Task and solver options: shared signatures, CLI values, checks and the record in the log."""
