#!/usr/bin/env bash
# README command 1: set everything up, then run the main job on the bundled
# Llama-2-7B decoder layer (today: parse, verify and print it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/build/bin/remat-opt" "$root/examples/llama2_decoder_layer.mlir"
