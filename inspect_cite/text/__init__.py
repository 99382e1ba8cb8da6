"""Text as the scorers and solvers read it: sentences, think blocks, normalisation, matching."""
