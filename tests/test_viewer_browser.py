"""The replay page in a real headless browser (system Chromium via Playwright): it loads
from disk without errors, steps through the record's scores and board, reaches the
game's result and shows annotations. Skips without Playwright or Chromium."""

from __future__ import annotations

import json

import pytest
from browser_support import Page, browser  # noqa: F401 (fixture)

from agents import make_agent
from agents.insight import Coach, annotate
from carcassonne_env import Game, Rules
from carcassonne_env.annotations import annotations_block
from carcassonne_env.viewer import write_html


def bot_game(rules: Rules, seed: int, annotated: bool = False, bot: str = "heuristic",
             moves: int | None = None) -> dict:
    bots = [make_agent(bot, seed=seed + p) for p in range(rules.seats)]
    coach = Coach("heuristic") if annotated else None
    game, notes = Game(rules, seed=seed), []
    while not game.done and (moves is None or game.turn < moves):
        bot = bots[game.current_player if rules.variant != "solo" else 0]
        move = bot.act(game)
        if annotated:
            notes.append(annotate(bot, game, move, 5, coach))
        game.play(move)
    record = game.to_record()
    if annotated:
        record["annotations"] = annotations_block(notes)
    return record


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("viewer")
    out = {}
    for name, rules, annotated, bot, moves in (
            ("duel", Rules(), True, "heuristic", None),
            ("four", Rules(players=4), False, "heuristic", None),
            ("solo", Rules(variant="solo"), False, "heuristic", None),
            ("six", Rules(players=6), False, "greedy", None),
            ("hands", Rules(hand_size=3, farm_scoring="city"), False, "greedy", None),
            ("solo4", Rules(variant="solo", solo_colours=4), False, "greedy", None),
            ("empty", Rules(), False, "greedy", 0)):
        record = bot_game(rules, seed=11, annotated=annotated, bot=bot, moves=moves)
        (folder / f"{name}.json").write_text(json.dumps(record))
        out[name] = (write_html(record, folder / f"{name}.html"), record)
    return out


def open_page(browser, path):  # noqa: F811
    page = Page(browser)
    page.page.goto(path.resolve().as_uri())
    page.page.wait_for_function("window.viewerReady === true")
    return page


def shown_scores(page) -> list[int]:
    return [int(t) for t in page.page.locator("#seats td.score").all_inner_texts()]


@pytest.mark.parametrize("name", ["duel", "four", "solo", "six", "hands", "solo4", "empty"])
def test_loads_from_disk_without_errors(browser, pages, name):  # noqa: F811
    path, record = pages[name]
    page = open_page(browser, path)
    assert page.page.locator("use.tile").count() == 1  # the start tile
    assert page.page.locator("#turn-number").inner_text() == "0"
    page.page.keyboard.press("End")
    assert page.page.locator("use.tile").count() == len(record["moves"]) + 1
    assert [int(t) for t in page.page.locator("#seats td.score").all_inner_texts()] == (
        record["scores"][-1] if record["moves"] else Game(
            Rules.from_dict(record["rules"]), tile_order=record["tile_order"]).scores)
    page.screenshot(f"viewer_{name}_end.png")
    page.page.keyboard.press("Home")
    page.page.keyboard.press(" ")  # plays, then pauses
    page.page.keyboard.press(" ")
    assert page.errors == []


def test_stepping_follows_the_record(browser, pages):  # noqa: F811
    path, record = pages["four"]
    page = open_page(browser, path)
    for k in range(1, 8):
        page.page.click("#forward")
        assert page.page.locator("#turn-number").inner_text() == str(k)
        assert shown_scores(page) == record["scores"][k - 1]
        assert page.page.locator("use.tile").count() == k + 1
    page.page.keyboard.press("ArrowLeft")
    assert page.page.locator("#turn-number").inner_text() == "6"
    assert page.page.locator("use.tile").count() == 7
    page.page.click("#first")
    assert shown_scores(page) == [0, 0, 0, 0]
    assert page.errors == []


@pytest.mark.parametrize("name", ["four", "solo"])
def test_slider_to_last_turn_gives_the_result(browser, pages, name):  # noqa: F811
    path, record = pages[name]
    page = open_page(browser, path)
    n = len(record["moves"])
    page.page.locator("#slider").fill(str(n))  # sets the value and fires "input"
    assert page.page.locator("#turn-number").inner_text() == str(n)
    assert shown_scores(page) == record["scores"][-1]
    result = record["result"]
    text = page.page.locator("#result").inner_text()
    if isinstance(result, list):
        assert text == " : ".join(map(str, result))
    else:  # solo: the lowest colour, marked in the seat table
        assert int(text) == result == min(shown_scores(page))
        assert page.page.locator("tr.lowest").count() >= 1
    page.screenshot(f"viewer_{name}_slider_last.png")
    assert page.errors == []


def test_heat_map_with_annotations(browser, pages):  # noqa: F811
    path, record = pages["duel"]
    page = open_page(browser, path)
    note = record["annotations"]["moves"][0]
    cells = page.page.locator("rect.heat-cell")
    assert cells.count() == len({(m["x"], m["y"]) for m in note["top"]})
    weights = page.page.eval_on_selector_all("rect.heat-cell",
                                             "n => n.map(e => e.dataset.weight)")
    total = sum(float(w) for w in weights)
    assert total == pytest.approx(sum(m["weight"] for m in note["top"]), abs=1e-3)
    assert page.page.locator("#value-fig").is_visible()
    assert page.page.locator("#lost-fig").is_visible()
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowRight")
    lost = page.page.locator(".points-lost").inner_text()
    assert float(lost) == pytest.approx(record["annotations"]["moves"][2]["coach"]["points_lost"],
                                        abs=0.01)
    page.page.uncheck("#heat")
    assert cells.count() == 0
    page.page.check("#heat")
    page.page.locator("#slider").fill("30")
    assert page.page.locator("rect.heat-cell").count() >= 1
    page.screenshot("viewer_annotated.png")  # docs/images/viewer.png
    assert page.errors == []
    # an unannotated page hides the insight panels
    plain = open_page(browser, pages["four"][0])
    assert plain.page.locator("rect.heat-cell").count() == 0
    assert not plain.page.locator("#value-fig").is_visible()
