"""Human play in a real headless browser: a person plays scripted turns by clicks (cell,
rotation key, place, follower spot) and the server's game follows; illegal clicks are
refused with a message. Skips without Playwright or Chromium."""

from __future__ import annotations

import threading

import pytest
from browser_support import Page, browser  # noqa: F401 (fixture)
from test_play_human import builder_first, to_first_choice

from agents import make_agent
from carcassonne_env import Rules
from carcassonne_env.viewer.play import HumanSession, make_server


@pytest.fixture
def served(tmp_path):
    def start(rules: Rules, bots: list[str], seed: int = 6):
        session = HumanSession(rules, [make_agent(b, seed=1) for b in bots], seed=seed,
                               record=tmp_path / "human.json", names=bots)
        server = make_server(session)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append(server)
        return session, f"http://127.0.0.1:{server.server_address[1]}/"

    servers: list = []
    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def open_play(browser, url):  # noqa: F811
    page = Page(browser)
    page.page.goto(url)
    page.page.wait_for_function("window.playReady === true")
    return page


def choose(session: HumanSession, turn: int, tile: str | None = None):
    """A legal move of the person: a follower on odd turns where one may stand."""
    legal = session.legal()
    tile = tile or session.game.hand[0]
    cells = sorted(legal[tile])
    cell = cells[turn % len(cells)]
    rots = sorted(legal[tile][cell])
    rot = rots[-1]  # needs R presses when several rotations fit
    options = legal[tile][cell][rot]
    with_follower = [f for f in options if f is not None]
    follower = with_follower[0] if turn % 2 and with_follower else (
        None if None in options else with_follower[0])
    x, y = map(int, cell.split(","))
    return x, y, int(rot), follower, rots, options


def play_by_clicks(page, session, turn, tile=None):
    x, y, rot, follower, rots, options = choose(session, turn, tile)
    before = session.game.turn
    if tile is not None:
        page.page.locator(f'#hand button[data-tile="{tile}"]').click()
    page.page.locator(f'rect.legal[data-x="{x}"][data-y="{y}"]').click()
    for _ in range(rots.index(str(rot))):
        page.page.keyboard.press("r")
    assert page.page.locator("#preview").get_attribute("transform").endswith(
        f"rotate({90 * rot} 0.5 0.5)")
    done = page.page.evaluate("window.moves || 0")
    page.page.keyboard.press("Enter")
    if options != [None]:
        if follower is None:
            page.page.click("#no-follower")
        else:
            page.page.locator(f'circle.spot[data-loc="{follower}"]').click()
    page.page.wait_for_function(f"(window.moves || 0) > {done}")
    move = session.game._moves[before]
    assert (move["x"], move["y"], move["rotation"], move["follower"]) == (x, y, rot, follower)
    if tile is not None:
        assert move["tile"] == tile
    return move


def test_human_plays_scripted_turns(browser, served):  # noqa: F811
    session, url = served(Rules(), ["heuristic"])
    page = open_play(browser, url)
    for turn in range(4):
        play_by_clicks(page, session, turn)
        state = page.page.evaluate("window.lastState")
        assert state["turn"] == session.game.turn == 2 * (turn + 1)
        assert state["scores"] == session.game.scores
        shown = [int(t) for t in page.page.locator("#seats td.score").all_inner_texts()]
        assert shown == session.game.scores
        assert page.page.locator("use.tile").count() == len(session.game.board)
        assert page.page.locator("rect.bot-move").count() == 1  # the bot's reply, framed
        assert len(page.page.locator("#bot-moves li").all_inner_texts()) == 1
    page.screenshot("play_human.png")
    assert page.errors == []


def test_illegal_clicks_are_refused(browser, served):  # noqa: F811
    session, url = served(Rules(), ["random"])
    page = open_play(browser, url)
    turn = session.game.turn
    box = page.page.locator("use.tile").first.bounding_box()  # the start tile: occupied
    page.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    message = page.page.locator("#message")
    assert "refused" in message.inner_text() and "(0, 0)" in message.inner_text()
    assert "error" in message.get_attribute("class")
    # A move the server refuses (sent as the page would) is reported, not played.
    page.page.evaluate("""() => { sel = {x: 7, y: 7, rots: ["0"], ri: 0, phase: "place"};
                                  return submit(null); }""")
    page.page.wait_for_function("document.getElementById('message').textContent"
                                ".includes('shares no edge')")
    assert session.game.turn == turn
    # the only console error: the browser's note of the refused request (HTTP 400)
    assert all("400" in e for e in page.errors)


def test_solo_human(browser, served):  # noqa: F811
    session, url = served(Rules(variant="solo"), [])
    page = open_play(browser, url)
    for turn in range(2):
        play_by_clicks(page, session, turn)
    assert session.game.turn == 2
    assert page.page.evaluate("window.lastState")["scores"] == session.game.scores


def test_strategic_hand_by_clicks(browser, served):  # noqa: F811
    session, url = served(Rules(hand_size=3), ["greedy"])
    page = open_play(browser, url)
    for turn in range(2):
        hand = session.game.hand
        tile = hand[-1]
        assert page.page.locator("#hand button").count() == len(hand)
        play_by_clicks(page, session, turn, tile)
    assert page.errors == []


def test_bot_replies_one_by_one(browser, served):  # noqa: F811
    """Each bot's reply is shown on its own, its tile framed as the last one, at the
    speed of the menu; then the person's turn."""
    session, url = served(Rules(players=3), ["greedy", "greedy"])
    page = open_play(browser, url)
    page.page.select_option("#bot-speed", "1500")
    x, y, rot, _, rots, options = choose(session, 0)
    page.page.locator(f'rect.legal[data-x="{x}"][data-y="{y}"]').click()
    for _ in range(rots.index(str(rot))):
        page.page.keyboard.press("r")
    page.page.keyboard.press("Enter")
    if options != [None]:
        page.page.click("#no-follower")
    replies = []
    for k in (1, 2):
        page.page.wait_for_function(f"window.repliesShown === {k}")
        if k == 1:
            replies = session.state()["bot_moves"]
        reply = replies[k - 1]
        last = page.page.locator("rect.last-tile")
        assert (float(last.get_attribute("x")), float(last.get_attribute("y"))) == (
            pytest.approx(reply["x"] + 0.02), pytest.approx(reply["y"] + 0.02))
        assert page.page.locator("use.tile").count() == 2 + k  # start, person's, replies
        assert page.page.locator("rect.legal").count() == 0  # no clicks meanwhile
        assert f"(reply {k} of 2)" in page.page.locator("#message").inner_text()
        assert len(page.page.locator("#bot-moves li").all_inner_texts()) == k
        shown = [int(t) for t in page.page.locator("#seats td.score").all_inner_texts()]
        assert shown == reply["scores"]
        if k == 1:
            page.screenshot("play_reply_one_by_one.png")
    page.page.wait_for_function("(window.moves || 0) >= 1")
    assert page.page.locator("#message").inner_text().startswith("Your turn")
    assert page.page.locator("rect.legal").count() > 0
    last = page.page.locator("rect.last-tile")
    assert float(last.get_attribute("x")) == pytest.approx(replies[1]["x"] + 0.02)
    assert page.errors == []


def figure_first(session: HumanSession, placed: list[str]) -> tuple:
    """(figure, x, y, "rotation", location): a figure not placed yet where one fits,
    else the first builder move, else a fixed pick."""
    figures = session.legal_figures().get(session.game.current_tile, {})
    wanted = [(f, *map(int, c.split(",")), r, loc) for c, rots in figures.items()
              for r, figs in rots.items() for f, locs in figs.items() for loc in locs
              if f not in placed]
    if wanted:
        return wanted[0]
    move = builder_first(session)
    return move.figure, move.x, move.y, str(move.rotation), move.follower


def test_expansion_figures_by_clicks(browser, served):  # noqa: F811
    """A large follower, a builder and a pig are placed by clicks: the figure buttons
    show the supply; the builder's extra turn is announced."""
    session, url = served(Rules(expansions=("traders_builders", "inns_cathedrals")),
                          ["random"], seed=9)
    page = open_play(browser, url)
    page.page.select_option("#bot-speed", "0")
    placed: list[str] = []
    while "extra" not in placed:
        figure, x, y, rot, loc = figure_first(session, placed)
        tile, figures = session.game.current_tile, session.legal_figures()
        rots = sorted(session.legal()[tile][f"{x},{y}"])
        spots = [f for f in session.legal()[tile][f"{x},{y}"][rot] if f is not None]
        spots += [f for fs in figures.get(tile, {}).get(f"{x},{y}", {}).get(rot, {}).values()
                  for f in fs]
        before = session.game.turn
        done = page.page.evaluate("window.moves || 0")
        page.page.locator(f'rect.legal[data-x="{x}"][data-y="{y}"]').click()
        for _ in range(rots.index(rot)):
            page.page.keyboard.press("r")
        page.page.keyboard.press("Enter")
        if loc is None:
            if spots:  # else the tile is placed at once
                page.page.click("#no-follower")
        else:
            button = page.page.locator(f'#figures button[data-figure="{figure}"]')
            left = session.game.figures_in_supply[0][figure]
            assert button.inner_text().endswith(f"({left} left)")
            button.click()
            page.page.locator(f'circle.spot[data-loc="{loc}"]').click()
        page.page.wait_for_function(f"(window.moves || 0) > {done}")
        played = session.game.to_record()["moves"][before]
        assert (played["x"], played["y"], played["rotation"], played["follower"],
                played.get("figure", "follower")) == (x, y, int(rot), loc, figure)
        if loc is not None and figure != "follower":
            placed.append(figure)
        if session.state()["extra_turn"]:
            placed.append("extra")
            assert page.page.locator("#extra").inner_text() == "your builder's extra turn"
            assert page.page.locator("#message").inner_text().startswith(
                "Your builder's extra turn")
    assert {"large", "builder", "pig", "extra"} <= set(placed)
    figures = page.page.locator("#seats td.figures").all_inner_texts()
    assert figures == [", ".join(f"{f} {n[f]}" for f in ("large", "builder", "pig"))
                       for n in session.game.figures_in_supply]
    page.screenshot("play_expansions.png")
    assert page.errors == []


def test_solo_scoring_choices_on_the_page(browser, served):  # noqa: F811
    session, url = served(Rules(variant="solo", scoring_order="player"), [], seed=1)
    to_first_choice(session)
    page = open_play(browser, url)
    choices = session.choices()
    buttons = page.page.locator("#choices button")
    assert buttons.count() == len(choices) > 1
    assert "which" in page.page.locator("#message").inner_text()
    assert page.page.locator("rect.legal").count() == 0
    assert not page.page.locator("#actions").is_visible()
    buttons.nth(1).hover()
    assert page.page.locator("rect.choice-tiles").count() == len(choices[1]["tiles"])
    page.screenshot("play_solo_choices.png")
    moves = len(session.record()["moves"])
    buttons.nth(1).click()
    page.page.wait_for_function("(window.moves || 0) >= 1")
    record = session.record()
    assert len(record["moves"]) == moves + 1
    assert (record["moves"][-1]["x"], record["moves"][-1]["y"],
            record["moves"][-1]["follower"]) == (choices[1]["x"], choices[1]["y"],
                                                 choices[1]["follower"])
    assert page.errors == []
