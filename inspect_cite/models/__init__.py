"""Heavy models shared across samples: one instance per process, batched across samples."""
