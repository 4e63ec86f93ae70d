"""How fast the HTML replay page opens: a 72-turn 4-player record (heuristic bots,
annotated with their top-5 moves) written by `carcassonne view`, opened from disk in
headless Chromium (system browser, Playwright). Reports the median over repeats of
the time from navigation to the page's ready flag (HTML parsed, data decoded, board,
panels and charts drawn), and the time to step through every turn.

    python benchmarks/viewer_speed.py [--repeats 5] [--limit 1.0] [--markdown]

Exit status 1 when the median open time exceeds --limit seconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def record_72_turns() -> dict:
    from agents.annotations import annotate
    from carcassonne_env import Game, Rules, make_bot
    from carcassonne_env.records import annotations_block

    rules = Rules(players=4)
    bots = [make_bot("heuristic", seed=p) for p in range(4)]
    game, notes = Game(rules, seed=1), []
    while not game.done:
        bot = bots[game.current_player]
        move = bot.act(game)
        notes.append(annotate(bot, game, move, 5))
        game.play(move)
    record = game.to_record()
    record["annotations"] = annotations_block(notes)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--limit", type=float, default=1.0, help="seconds (default 1.0)")
    parser.add_argument("--markdown", action="store_true", help="print a README table row")
    args = parser.parse_args(argv)

    from browser_support import chromium_path
    from playwright.sync_api import sync_playwright

    from carcassonne_env.viewer import write_html

    record = record_72_turns()
    turns = len(record["moves"]) + 1  # the start tile and 71 draws
    folder = Path(tempfile.mkdtemp())
    t = time.perf_counter()
    path = write_html(record, folder / "bench.html")
    write_s = time.perf_counter() - t
    opens, ready_js, steps = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        for _ in range(args.repeats):
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            t = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_function("window.viewerReady === true")
            opens.append(time.perf_counter() - t)
            ready_js.append(page.evaluate("performance.now()") / 1000)
            t = time.perf_counter()
            page.evaluate("() => { for (let k = 0; k <= D.turns.length; k++) show(k); }")
            steps.append((time.perf_counter() - t) / len(record["moves"]))
            page.close()
        version = browser.version
        browser.close()
    med = statistics.median(opens)
    size_kb = path.stat().st_size / 1024
    print(
        f"record: 4 players, {turns} tiles ({len(record['moves'])} moves), annotated; "
        f"page {size_kb:.0f} KiB written in {write_s:.2f} s"
    )
    print(
        f"Chromium {version}: open (goto -> ready) median {med * 1000:.0f} ms "
        f"(min {min(opens) * 1000:.0f}, max {max(opens) * 1000:.0f}; {args.repeats} runs); "
        f"page clock at ready {statistics.median(ready_js) * 1000:.0f} ms; "
        f"one step {statistics.median(steps) * 1000:.1f} ms"
    )
    if args.markdown:
        print(
            f"| HTML viewer: open a {turns}-turn 4-player annotated record (headless "
            f"Chromium) | {med * 1000:.0f} ms | one step {statistics.median(steps) * 1000:.1f}"
            f" ms |"
        )
    return 0 if med < args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
