#!/bin/bash
# Ablation at equal wall-clock: four rows side by side, 1 torch thread each, same PPO settings as ppo_duel_rl.
cd /work/main
COMMON="--env batched --bots greedy,heuristic --bot-share 1 --n-envs 32 --n-steps 64 --batch-size 256 --n-epochs 4 --learning-rate 1e-3 --ent-coef 0 --gamma 0.97 --gae-lambda 0.8 --reward projected --board-size 20 --total-timesteps 3000000 --checkpoint-every 10000 --torch-threads 1 --seed 0 --no-progress"
R=/work/runs/ablation
date +%s > $R/start
carcassonne train multi --out $R/planes $COMMON --policy board --obs-features standard > $R/planes.log 2>&1 &
carcassonne train multi --out $R/aggregate $COMMON --policy board --obs-features aggregate > $R/aggregate.log 2>&1 &
carcassonne train multi --out $R/candidates $COMMON --policy candidates --hidden 64 --obs-features aggregate > $R/candidates.log 2>&1 &
carcassonne train multi --out $R/prior $COMMON --policy board --obs-features aggregate --move-prior 4 > $R/prior.log 2>&1 &
wait
