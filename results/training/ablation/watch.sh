#!/bin/bash
# Stop each ablation row once its training wall clock (curve.csv wall_s) reaches 2400 s.
R=/work/runs/ablation
left="planes aggregate candidates prior"
while [ -n "$left" ]; do
  next=""
  for d in $left; do
    w=$(tail -1 $R/$d/curve.csv 2>/dev/null | cut -d, -f2)
    if [ -n "$w" ] && python -c "import sys; sys.exit(0 if float('$w') >= 2400 else 1)" 2>/dev/null; then
      pkill -f "train multi --out $R/$d " ; echo "$(date) stopped $d at wall_s $w; last checkpoint $(ls -t $R/$d/checkpoints | head -1)" >> $R/watch.log
    else next="$next $d"; fi
  done
  left=$next; sleep 20
done
