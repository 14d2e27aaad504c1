#!/bin/bash
# kvchat-cli bench beside llama.cpp's llama-bench on the same files, alternated, one line
# per round (docs/PERFORMANCE.md, issue 44's table). llama.cpp is built outside the project
# (e.g. /tmp/llama.cpp/build, GGML_NATIVE=ON) from a current mirror; nothing of it is kept.
#   scripts/bench_vs_llamacpp.sh KVCHAT_CLI LLAMA_BIN_DIR OUT NAME=FILE [NAME=FILE ...]
# Per file: threads 2 then 1, 3 rounds of `llama-bench -p 128 -n 32 -r 2 -t N` and
# `kvchat-cli bench --pp 128 --tg 32 --repeat 2 --threads N` (prefill and decode tok/s, and
# kvchat's share of the same run's read bandwidth); then decode at depth 4096, 2 threads.
# SMALL="name=file ..." adds `-p 256 -n 256` rows for tiny models (kjv-demo, stories260K).
set -u
if [ $# -lt 4 ]; then
  echo "usage: $0 KVCHAT_CLI LLAMA_BIN_DIR OUT NAME=FILE [NAME=FILE ...]" >&2
  exit 2
fi
kvchat=$1 llama_dir=$2 out=$3
shift 3
export LD_LIBRARY_PATH="$llama_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
lb="$llama_dir/llama-bench"
: >"$out"
# avg tok/s of each llama-bench test (csv: avg_ts is the next-to-last field)
llama_ts() { "$lb" "$@" -o csv 2>/dev/null | awk -F, 'NR > 1 { gsub(/"/, ""); printf "%s ", $(NF - 1) }'; }
row() { echo "$*" | tee -a "$out"; }

for threads in 2 1; do
  for spec in "$@"; do
    name=${spec%%=*} file=${spec#*=}
    for round in 1 2 3; do
      l=$(llama_ts -m "$file" -p 128 -n 32 -r 2 -t "$threads")
      k=$("$kvchat" bench --model "$file" --pp 128 --tg 32 --repeat 2 --threads "$threads" \
        2>/dev/null | tail -1 | awk '{ print $3, $6, $10 }')
      row "$name threads=$threads round=$round llama pp/tg: $l kvchat pp/tg/roofline: $k"
    done
  done
done
for spec in ${SMALL:-}; do
  name=${spec%%=*} file=${spec#*=}
  for round in 1 2 3; do
    l=$(llama_ts -m "$file" -p 256 -n 256 -r 3 -t 2)
    k=$("$kvchat" bench --model "$file" --pp 256 --tg 256 --repeat 3 --threads 2 2>/dev/null |
      tail -1 | awk '{ print $3, $6 }')
    row "$name threads=2 round=$round llama pp/tg: $l kvchat pp/tg: $k"
  done
done
for spec in "$@"; do
  name=${spec%%=*} file=${spec#*=}
  l=$(llama_ts -m "$file" -p 0 -n 32 -d 4096 -r 1 -t 2)
  # one context and no --repeat: decode tok/s is the 5th column
  k=$("$kvchat" bench --model "$file" --contexts 4096 --tg 32 --threads 2 2>/dev/null |
    tail -1 | awk '{ print $5 }')
  row "$name depth=4096 threads=2 llama tg: $l kvchat tg: $k"
done
