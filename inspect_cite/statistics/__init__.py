"""Statistics of judges: agreement with people and rates corrected for a judge's errors."""
