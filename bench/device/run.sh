#!/bin/sh
# The device benchmark of a packed folder (bench/device/pack.ts): unpacks Node and Dawn, finds the
# Vulkan loader and an NVIDIA ICD, runs bench.mjs (Baton WebGPU + CPU, TF.js WebGPU) and, when
# python3 has torch, torch_ceiling.py. Writes results/baton.json and results/torch.json.
# Usage: ./run.sh [--quick]
# On a bare NVIDIA machine (see README.md): set VK_ICD_FILENAMES to the driver's ICD before this
# script starts, e.g.
#   VK_ICD_FILENAMES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ./run.sh
# The full run bounds itself to about 4 minutes (bench.mjs skips rows past 190 s; torch gets 60 s).
set -eu
DIR=$(cd "$(dirname "$0")" && pwd)
cd "$DIR"
[ -x node ] || { gunzip -c node.gz > node && chmod +x node; }
DAWN=node_modules/webgpu/dist/linux-x64/dawn.node
[ -f "$DAWN" ] || gunzip -c "$DAWN.gz" > "$DAWN"
# The machine's Vulkan loader and libglvnd libraries where it has them, else the packed ones
# (linked into use/, which goes on LD_LIBRARY_PATH; NVIDIA's Vulkan driver loads libGLdispatch).
mkdir -p use
for f in lib/*; do
  n=$(basename "$f")
  if ! ldconfig -p 2>/dev/null | grep -q " $n "; then ln -sf "../lib/$n" "use/$n"; echo "using the packed $n" >&2; fi
done
export LD_LIBRARY_PATH="$DIR/use${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# NVIDIA's ICD where the driver put one (containers often lack the loader's default search paths).
if [ -z "${VK_ICD_FILENAMES:-}" ]; then
  for f in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
    /etc/vulkan/icd.d/nvidia_icd.json /usr/lib/chromium/vk_swiftshader_icd.json; do
    if [ -f "$f" ]; then export VK_ICD_FILENAMES="$f"; break; fi
  done
fi
echo "VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-(loader default)}" >&2
case "${VK_ICD_FILENAMES:-}" in
  *swiftshader*) echo "note: SwiftShader (a software adapter) — no NVIDIA ICD was found; see README.md" >&2 ;;
esac
# The card's SM clock and utilization every 200 ms while bench.mjs runs (results/clocks.csv;
# bench.mjs reports them per section as `clocks`).
SMI=""
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv,noheader -lms 200 \
    > results/clocks.csv 2>/dev/null &
  SMI=$!
  export BATON_CLOCK_LOG="$DIR/results/clocks.csv"
fi
./node bench.mjs "$@" > results/baton.json || { [ -z "$SMI" ] || kill "$SMI" 2>/dev/null; exit 1; }
[ -z "$SMI" ] || kill "$SMI" 2>/dev/null || true
echo "wrote $DIR/results/baton.json" >&2
if command -v python3 >/dev/null 2>&1 && python3 -c 'import torch' 2>/dev/null; then
  if command -v timeout >/dev/null 2>&1; then T="timeout 60"; else T=""; fi
  $T python3 torch_ceiling.py "$@" > results/torch.json && echo "wrote $DIR/results/torch.json" >&2 ||
    echo "torch_ceiling.py failed or ran past 60 s (results/torch.json is partial)" >&2
else
  echo "python3 with torch not found: no native ceiling (results/torch.json)" >&2
fi
