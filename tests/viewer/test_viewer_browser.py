"""The replay page in a real headless browser (system Chromium via Playwright): it loads
from disk without errors, steps through the record's scores and board, reaches the
game's result and shows annotations. Skips without Playwright or Chromium."""

from __future__ import annotations

import json

import pytest

from agents.annotations import Coach, annotate
from carcassonne_env import Game, Rules, make_bot
from carcassonne_env.records import annotations_block
from carcassonne_env.rendering.text import move_text
from carcassonne_env.viewer import write_html
from tests.support.browser import Page, browser  # noqa: F401 (fixture)


def bot_game(
    rules: Rules,
    seed: int,
    annotated: bool = False,
    bot: str = "heuristic",
    moves: int | None = None,
) -> dict:
    bots = [make_bot(bot, seed=seed + p) for p in range(rules.seats)]
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
        ("empty", Rules(), False, "greedy", 0),
    ):
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
        record["scores"][-1]
        if record["moves"]
        else Game(Rules.from_dict(record["rules"]), tile_order=record["tile_order"]).scores
    )
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
    weights = page.page.eval_on_selector_all("rect.heat-cell", "n => n.map(e => e.dataset.weight)")
    total = sum(float(w) for w in weights)
    assert total == pytest.approx(sum(m["weight"] for m in note["top"]), abs=1e-3)
    assert page.page.locator(".value-fig").first.is_visible()
    assert page.page.locator("#lost-fig").is_visible()
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowRight")
    lost = page.page.locator(".points-lost").inner_text()
    assert float(lost) == pytest.approx(
        record["annotations"]["moves"][2]["coach"]["points_lost"], abs=0.01
    )
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
    assert plain.page.locator(".value-fig").count() == 0


def test_a_follower_that_scores_at_once_is_shown_as_played(browser, tmp_path):  # noqa: F811
    """Issue 28: move 2 of `play --bots heuristic,greedy --seed 5 --annotate --coach
    heuristic` puts a follower on city:S that scores at once: the turn line and the
    coach's "played" name it, the same move as the coach's best."""
    from tests.support.games import issue_28_opening

    record = issue_28_opening().to_record()
    best = {"x": 0, "y": -1, "rotation": 3, "follower": "city:S"}
    note = {
        "agent": "heuristic",
        "kind": "scores",
        "value": 2.874,
        "top": [dict(best, weight=1.0, label="estimate 2.87", score=2.874)],
        "coach": {"bot": "heuristic", "best": best, "points_lost": 0.0},
    }
    record["annotations"] = annotations_block([None, None, note])
    page = open_page(browser, write_html(record, tmp_path / "scored.html"))
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowRight")
    words = "(0, -1) rot 3, follower on the city (city:S)"
    insight = page.page.locator("#insight").inner_text()
    assert f"best {words};" in insight
    assert page.page.locator("#played").inner_text() == f"played: {words}"
    page.page.keyboard.press("ArrowRight")
    assert page.page.locator("#move-line").inner_text() == f"red placed I at {words}"
    assert page.errors == []


def test_coach_best_names_its_figure(browser, tmp_path):  # noqa: F811
    """Issue 28: the coach's best move is shown with its figure and feature, as the
    record's `coach.text` (a builder here, next to an ordinary follower played)."""
    game = Game(Rules(expansions=("traders_builders", "inns_cathedrals")), seed=3)
    for _ in range(4):
        legal = game.legal_moves()
        game.play(legal[(game.turn * 7) % len(legal)])
    coach, bot = Coach("heuristic"), make_bot("greedy", seed=0)
    move = bot.act(game)
    note = annotate(bot, game, move, 5, coach)
    game.play(move)
    record = game.to_record()
    record["annotations"] = annotations_block([None] * 4 + [note])
    page = open_page(browser, write_html(record, tmp_path / "coach.html"))
    page.page.locator("#slider").fill("4")
    insight = page.page.locator("#insight").inner_text()
    assert note["coach"]["text"] == "(1, -1) rot 0, builder on the city (city:W)"
    assert f"best {note['coach']['text']};" in insight
    played = move_text(*move)
    assert page.page.locator("#played").inner_text() == f"played: {played}"
    assert page.errors == []


def chart_fill(page, selector: str) -> float:
    """The drawn width of a chart (its viewBox) over the width it is shown at."""
    return page.page.eval_on_selector(
        selector, "s => s.viewBox.baseVal.width / s.getBoundingClientRect().width"
    )


def test_score_chart_fills_its_panel_without_annotations(browser, pages):  # noqa: F811
    page = open_page(browser, pages["four"][0])
    assert page.page.locator(".value-fig").count() == 0
    assert not page.page.locator("#lost-fig").is_visible()
    assert chart_fill(page, "#score-chart") == pytest.approx(1.0, abs=0.01)
    charts = page.page.locator(".charts").bounding_box()
    assert page.page.locator("#score-chart").bounding_box()["width"] > 0.9 * charts["width"]


def test_value_charts_one_axis_per_agent(browser, pages, tmp_path):  # noqa: F811
    """A value head (about +-1) and the heuristic's points each get their own chart,
    axis and unit."""
    record = json.loads(json.dumps(pages["duel"][1]))
    for k, move in enumerate(record["moves"]):
        if move["player"] == 1:
            record["annotations"]["moves"][k] = {
                "agent": "sb3:model=ppo_duel",
                "kind": "policy",
                "value": round(0.5 - k / 80, 3),
                "top": [],
            }
    page = open_page(browser, write_html(record, tmp_path / "mixed.html"))
    figs = page.page.locator(".value-fig")
    assert figs.count() == 2
    assert [figs.nth(i).get_attribute("data-agent") for i in range(2)] == [
        "heuristic",
        "sb3:model=ppo_duel",
    ]
    assert "points: estimated final score margin" in figs.nth(0).inner_text()
    assert "value head" in figs.nth(1).inner_text()
    ticks = [
        [float(t) for t in figs.nth(i).locator("text.tick").all_text_contents()[:2]]
        for i in range(2)
    ]
    heuristic = [
        n["value"] for n in record["annotations"]["moves"] if n and n["agent"] == "heuristic"
    ]
    policy = [n["value"] for n in record["annotations"]["moves"] if n and n["agent"] != "heuristic"]
    assert ticks[0] == pytest.approx([min(heuristic), max(heuristic)], abs=0.01)
    assert ticks[1] == pytest.approx([min(policy), max(policy)], abs=0.01)
    for i in range(2):
        assert chart_fill(page, f".value-fig:nth-of-type({i + 2}) svg") == pytest.approx(
            1.0, abs=0.01
        )
    page.screenshot("viewer_value_per_agent.png")
    assert page.errors == []


def test_expansion_figures_and_goods(browser, tmp_path):  # noqa: F811
    from tests.support.games import expansion_game

    game = expansion_game()
    record = game.to_record()
    page = open_page(browser, write_html(record, tmp_path / "tb.html"))
    data = page.page.evaluate("D")
    k = next(i for i, t in enumerate(data["turns"]) if t.get("figure") == "builder")
    page.page.locator("#slider").fill(str(k + 1))
    t = data["turns"][k]
    assert (
        page.page.locator("#move-line")
        .inner_text()
        .endswith(
            f"rot {t['rotation']}, builder on the {t['follower'].split(':')[0]} ({t['follower']})"
        )
    )
    extra = next(i for i, t in enumerate(data["turns"]) if t.get("extra"))
    page.page.locator("#slider").fill(str(extra + 1))
    assert page.page.locator("#move-line").inner_text().endswith("(builder's extra turn)")
    page.page.keyboard.press("End")
    figures = page.page.locator("#seats td.figures").all_inner_texts()
    assert figures == [
        ", ".join(
            f"{name} {n}"
            for name, n in (("large", f["large"]), ("builder", f["builder"]), ("pig", f["pig"]))
        )
        for f in game.figures_in_supply
    ]
    events = page.page.locator("#events").inner_text()
    assert "final goods: most wine" in events and "goods (" not in events
    page.screenshot("viewer_expansions.png")
    assert page.errors == []
