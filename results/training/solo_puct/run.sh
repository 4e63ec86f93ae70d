#!/bin/bash
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD CARCASSONNE_NO_COMPILE_NOTICE=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
python3 -c "import numba, numpy, torch; print('versions', numba.__version__, numpy.__version__, torch.__version__)"
nproc
T0=$(date +%s)
python3 .devrun/screen.py puct 1000 1 1 0 /tmp/warm.jsonl || exit 2
cat /tmp/warm.jsonl; echo warm $(( $(date +%s) - T0 )) s
mkdir -p /tmp/r
# name spec workers
V="p64|puct|1 p128|puct:simulations=128|2 p256|puct:simulations=256|4 c15|puct:c=1.5|1 c6|puct:c=6|1 t15|puct:prior_temperature=1.5|1 t6|puct:prior_temperature=6|1 la1|puct:lookahead=1|3 p128c6|puct:simulations=128:c=6|2"
for v in $V; do
  IFS='|' read name spec w <<< "$v"
  for ((i=0; i<w; i++)); do
    timeout -s KILL ${BUDGET:-400} python3 .devrun/screen.py "$spec" 1000 ${DEALS:-150} $w $i /tmp/r/$name.$i.jsonl &
  done
done
wait
cat /tmp/r/*.jsonl > $OUT/results.jsonl
wc -l /tmp/r/*.jsonl
echo total $(( $(date +%s) - T0 )) s
