#!/bin/bash
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD CARCASSONNE_NO_COMPILE_NOTICE=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
T0=$(date +%s)
python3 .devrun/screen.py puct 1000 1 1 0 /tmp/warm.jsonl || exit 2
echo warm $(( $(date +%s) - T0 )) s
for ((i=0; i<16; i++)); do
  timeout -s KILL ${BUDGET:-250} python3 .devrun/screen.py "puct:simulations=256" 0 1000 16 $i $OUT/p256_$((i % 4)).jsonl &
done
wait
wc -l $OUT/*.jsonl
echo total $(( $(date +%s) - T0 )) s
