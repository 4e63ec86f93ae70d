"""Play solo deals with one bot spec, appending one JSON line per deal (the screens here).

    python screen.py BOT FIRST_DEAL DEALS STRIDE OFFSET OUT.jsonl

plays deals FIRST_DEAL + OFFSET, + STRIDE, ... below FIRST_DEAL + DEALS, bot seeds as
`carcassonne solo-bench --seed 0`; a process killed part way keeps the deals written."""

import json
import sys

from agents.solo_bench import play_deal
from carcassonne_env import Rules

bot, out = sys.argv[1], sys.argv[6]
first, count, stride, offset = (int(a) for a in sys.argv[2:6])
rules = Rules(variant="solo")
with open(out, "a") as f:
    for d in range(first + offset, first + count, stride):
        r = play_deal(bot, rules, 0, d)
        f.write(json.dumps({"bot": bot, "deal": d, "result": r.result, "moves": r.moves,
                            "s": r.act_seconds, "end": r.end_reason}) + "\n")
        f.flush()
