"""What the model saw and what it cites from.

The document contract, the evidence record each solver writes, a transcript's sources, gold
spans and the posthoc solver's records.
"""
