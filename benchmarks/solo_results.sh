#!/usr/bin/env bash
# The runs behind docs/solo_results.md: every bot on the solo benchmark's deals for 3
# and 4 colours x 3, 4 and 5 followers, the search bot's time curve, the clairvoyant
# lines (per-deal files in runs/solo_results/, or the folder given as the argument); then
# the tables (results/solo/tables.md, results/solo/summary.md) and the picture. A few
# hours on 2 cores.
set -euo pipefail
T=${1:-runs/solo_results}
mkdir -p $T/curve
for c in 3 4; do for f in 3 4 5; do
  for bot in random greedy heuristic; do
    carcassonne solo-bench --bot $bot --deals 1000 --workers 2 --solo-colours $c \
        --followers $f --json $T/${bot}_c${c}_f${f}.json
  done
  carcassonne solo-bench --bot mcts --deals 200 --workers 2 --solo-colours $c \
      --followers $f --json $T/mcts_c${c}_f${f}.json   # published: 100 deals for c4 f3, c4 f5
  [ "$c$f" = 34 ] || carcassonne solo-bench --bot solo-search:seconds=0.05 --deals 50 \
      --workers 2 --solo-colours $c --followers $f --json $T/solo-search-0.05_c${c}_f${f}.json
done; done
carcassonne solo-bench --bot solo-search:seconds=0.05 --deals 1000 --workers 1 \
    --json $T/solo-search-0.05_c3_f4.json            # the main run: all 1000 deals
for f in 3 4 5; do
  carcassonne solo-bench --bot sb3:model=ppo_solo --deals 1000 --workers 2 --followers $f \
      --json $T/ppo_solo_c3_f$f.json
done
# the learned players (one process each: their time per move is compared at one worker)
for model in ppo_solo_rl ppo_solo_rl_3m ppo_solo_rl_small; do
  carcassonne solo-bench --bot sb3:model=$model --deals 1000 --workers 1 \
      --json $T/${model}_c3_f4.json
done
carcassonne solo-bench --bot puct --deals 1000 --workers 1 --json $T/puct_c3_f4.json
carcassonne solo-bench --bot puct:simulations=256 --deals 1000 --workers 2 \
    --json $T/puct-256_c3_f4.json
carcassonne solo-bench --bot solo-search:seconds=0.05:guide=ppo_solo_rl --deals 200 \
    --workers 1 --json $T/solo-search-0.05-guided_c3_f4.json
carcassonne solo-bench --bot solo-search:seconds=0.2 --deals 100 --workers 2 \
    --json $T/curve/solo-search-0.2_c3_f4.json
carcassonne solo-bench --bot solo-search:seconds=1 --deals 20 --workers 2 \
    --json $T/curve/solo-search-1_c3_f4.json
for first in 0 50 100 150; do   # the clairvoyant lines, 50 deals per process
  python -m benchmarks.solo_clairvoyant --deals 50 --first-deal $first --seconds 0 \
      --out $T/clairvoyant-$first.json
done
python -m benchmarks.solo_results_table $T --png docs/images/solo_results.png \
    > results/solo/tables.md.tmp && mv results/solo/tables.md.tmp results/solo/tables.md
python -m benchmarks.solo_results_table $T --summary \
    > results/solo/summary.md.tmp && mv results/solo/summary.md.tmp results/solo/summary.md
cat results/solo/summary.md   # the README's solo table
