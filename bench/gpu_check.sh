#!/usr/bin/env bash
# The GPU check of bench/bench_nli_gpu.py, prepared to run once on a lent H200 (about 3 minutes;
# it stops itself at 8). Needs no internet and no install: the machine's python3 with torch,
# transformers, tokenizers and anyio, and this repository as the working directory.
#
#   bash bench/gpu_check.sh            # writes nli_gpu.json and nli_gpu.txt to $OUT (or .)
#
# Prints every figure the acceptance of issue 17 names, for the T5-11B (TRUE) batched path:
# encoder MFU >= 40%, decisions equal to eval.py's loop >= 99.5%, 22,000 pairs < 3 minutes.
# Extra arguments go to bench_nli_gpu.py (e.g. --peak-tflops 790 --batched-pairs 3000);
# `bash bench/gpu_check.sh --tiny` checks this script on a CPU (no figure is then meaningful).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-.}"
py="${PYTHON:-python3}"
start=$(date +%s)

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
"$py" - "$@" <<'EOF'
import sys

import torch
import transformers

print(f"torch {torch.__version__}, transformers {transformers.__version__}")
if torch.cuda.is_available():
    print(f"{torch.cuda.get_device_name(0)}, "
          f"{torch.cuda.get_device_properties(0).total_memory / 2**30:.0f} GiB")
elif "--tiny" not in sys.argv:
    sys.exit("no CUDA GPU visible to torch")
import anyio, tokenizers  # noqa: E401,F401  (needed by the batching queue and the tokenizer)
import inspect_cite.nli  # noqa: F401  (must not need Inspect)
EOF

timeout 480 "$py" bench/bench_nli_gpu.py --out "$out/nli_gpu.json" "$@" | tee "$out/nli_gpu.txt"

"$py" - "$out/nli_gpu.json" <<'EOF'
import json
import sys

figures = json.load(open(sys.argv[1]))
print(f"\n== acceptance (issue 17), {figures['info']['device']}")
for row in figures["models"]:
    memory = row["peak_gpu_memory_gb"]
    print(f"{row['model']}: batched {row['batched_pairs_per_s']:.1f} pairs/s, per-pair loop "
          f"{row['loop_pairs_per_s']:.1f} pairs/s ({row['speedup']:.1f}x); peak GPU memory "
          + (f"{memory:.1f} GB" if memory is not None else "n/a"))
t5 = next(row for row in figures["models"] if row["spec"] == "seq2seq:")
mfu, equal, est = t5["encoder_mfu"], t5["decisions_equal_share"], t5["est_22000_pairs_s_batched"]
checks = [
    ("encoder MFU, end to end", ">= 40%", None if mfu is None else mfu >= 0.40,
     "n/a (no GPU)" if mfu is None else f"{100 * mfu:.1f}% of {t5['peak_tflops']:g} TFLOP/s"),
    ("decisions equal to eval.py's loop", ">= 99.5%", equal >= 0.995,
     f"{100 * equal:.2f}% of {t5['decisions_compared']}"),
    ("22,000 pairs, estimated", "< 180 s", est < 180, f"{est:.0f} s"),
]
for name, target, ok, shown in checks:
    verdict = "n/a " if ok is None else "PASS" if ok else "FAIL"
    print(f"{verdict}  {name}: {shown} (target {target})")
if t5["encoder_alone_s"] is not None:
    alone = t5["encoder_alone_mfu"]
    print(f"      encoder alone on the same batches: "
          + (f"MFU {100 * alone:.1f}%, " if alone is not None else "")
          + f"{100 * t5['encoder_share_of_batched']:.0f}% of the batched time, padding "
          f"efficiency {100 * t5['padding_efficiency']:.0f}%")
EOF
echo "gpu_check: $(( $(date +%s) - start )) s"
