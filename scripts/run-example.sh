#!/usr/bin/env bash
# README command 1: set everything up, then run the main job on the bundled
# Llama-2-7B decoder layer: plan its joint function (min-cut on an H100) and
# print the text report of every save / recompute / derive decision.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/build/bin/remat-opt" "$root/examples/llama2_decoder_layer.mlir" \
  -remat-plan="strategy=min-cut target=h100" \
  -remat-report="format=text output=-" -o /dev/null
