"""`benchmarks/solo_results_table.py --summary`: the README's solo table from solo-bench
result files (every bot at 3 colours and 4 followers by mean, then the clairvoyant line)."""

import json

from benchmarks.solo_results_table import load, main, summary


def _bench(folder, name, bot, results, seconds=0.01):
    rows = [
        {
            "deal_seed": k,
            "result": r,
            "end_reason": "A" if k % 4 else "B",
            "moves": 50,
            "act_seconds": seconds * 50,
        }
        for k, r in enumerate(results)
    ]
    (folder / name).write_text(json.dumps({"bot": bot, "rows": rows}))


def test_the_summary_ranks_every_bot_and_ends_with_the_clairvoyant_line(tmp_path, capsys):
    _bench(tmp_path, "heuristic_c3_f4.json", "heuristic", [18, 20, 22, 20])
    _bench(tmp_path, "ppo_solo_rl_c3_f4.json", "sb3:model=ppo_solo_rl", [19, 21, 23, 21])
    _bench(tmp_path, "search_c3_f4.json", "solo-search:seconds=0.05", [30, 26, 34, 30], 0.05)
    _bench(tmp_path, "heuristic_c4_f4.json", "heuristic", [9, 9])  # another setting: left out
    (tmp_path / "clairvoyant-0.json").write_text(
        json.dumps(
            {
                "rows": [
                    {"deal": k, "result": 60 + k, "end_reason": "B", "moves": 70} for k in range(4)
                ]
            }
        )
    )
    table = summary(*load(tmp_path)).splitlines()
    assert table[0] == "| bot | deals | mean [95% CI] | median | end A / end B | ms/move |"
    bots = [line.split(" | ")[0] for line in table[2:]]
    assert bots == [
        "| `heuristic`",
        "| `sb3:model=ppo_solo_rl`",
        "| `solo-search:seconds=0.05`",
        "| clairvoyant line (`solo-solve`, stacks known)",
    ]
    search = table[4].split(" | ")
    assert search[1:3] == ["4", "**30.00** [26.80, 33.20]"]  # the best fair bot in bold
    assert search[3:] == ["30", "75.0% / 25.0%", "50.0 |"]
    assert "**" not in table[5] and table[5].split(" | ")[-1] == "- |"
    main([str(tmp_path), "--summary"])
    assert capsys.readouterr().out.splitlines() == table
