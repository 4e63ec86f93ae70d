"""Human play in a real headless browser: a person plays scripted turns by clicks (cell,
rotation key, place, follower spot) and the server's game follows; illegal clicks are
refused with a message. Skips without Playwright or Chromium."""

from __future__ import annotations

import threading
import time

import pytest

from carcassonne_env import Rules, make_bot
from carcassonne_env.viewer.play import HumanSession, make_server
from tests.support.browser import Page, browser  # noqa: F401 (fixture)
from tests.support.play_sessions import (
    a_choice_scores_nothing,
    at_end_bonus,
    builder_first,
    solo_until,
    to_first_choice,
)


@pytest.fixture
def served(tmp_path):
    def start(rules: Rules, bots: list[str], seed: int = 6, session: HumanSession | None = None):
        """Serve a new session, or `session` (played on already)."""
        if session is None:
            session = HumanSession(
                rules,
                [make_bot(b, seed=1) for b in bots],
                seed=seed,
                record=tmp_path / "human.json",
                names=bots,
            )
        server = make_server(session)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append(server)
        start.server = server
        return session, server.url  # with the session's token

    servers: list = []
    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def wait_until(page, expression: str, timeout: float = 30.0) -> None:
    """Poll the JavaScript `expression` in the page until it is true (Playwright's
    `wait_for_function` evaluates its predicate with eval, which the page's
    Content-Security-Policy forbids, as it should)."""
    deadline = time.monotonic() + timeout
    while not page.page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        page.page.wait_for_timeout(20)


def open_play(browser, url):  # noqa: F811
    page = Page(browser)
    page.page.goto(url)
    wait_until(page, "window.playReady === true")
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
    follower = (
        with_follower[0]
        if turn % 2 and with_follower
        else (None if None in options else with_follower[0])
    )
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
    assert (
        page.page.locator("#preview")
        .get_attribute("transform")
        .endswith(f"rotate({90 * rot} 0.5 0.5)")
    )
    done = page.page.evaluate("window.moves || 0")
    page.page.keyboard.press("Enter")
    if options != [None]:
        if follower is None:
            page.page.click("#no-follower")
        else:
            page.page.locator(f'circle.spot[data-loc="{follower}"]').click()
    wait_until(page, f"(window.moves || 0) > {done}")
    move = session.game.moves_played[before]
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
    wait_until(page, "document.getElementById('message').textContent.includes('shares no edge')")
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
        wait_until(page, f"window.repliesShown === {k}")
        if k == 1:
            replies = session.state()["bot_moves"]
        reply = replies[k - 1]
        last = page.page.locator("rect.last-tile")
        assert (float(last.get_attribute("x")), float(last.get_attribute("y"))) == (
            pytest.approx(reply["x"] + 0.02),
            pytest.approx(reply["y"] + 0.02),
        )
        assert page.page.locator("use.tile").count() == 2 + k  # start, person's, replies
        assert page.page.locator("rect.legal").count() == 0  # no clicks meanwhile
        assert f"(reply {k} of 2)" in page.page.locator("#message").inner_text()
        assert len(page.page.locator("#bot-moves li").all_inner_texts()) == k
        shown = [int(t) for t in page.page.locator("#seats td.score").all_inner_texts()]
        assert shown == reply["scores"]
        if k == 1:
            page.screenshot("play_reply_one_by_one.png")
    wait_until(page, "(window.moves || 0) >= 1")
    assert page.page.locator("#message").inner_text().startswith("Your turn")
    assert page.page.locator("rect.legal").count() > 0
    last = page.page.locator("rect.last-tile")
    assert float(last.get_attribute("x")) == pytest.approx(replies[1]["x"] + 0.02)
    assert page.errors == []


def figure_first(session: HumanSession, placed: list[str]) -> tuple:
    """(figure, x, y, "rotation", location): a figure not placed yet where one fits,
    else the first builder move, else a fixed pick."""
    figures = session.legal_figures().get(session.game.current_tile, {})
    wanted = [
        (f, *map(int, c.split(",")), r, loc)
        for c, rots in figures.items()
        for r, figs in rots.items()
        for f, locs in figs.items()
        for loc in locs
        if f not in placed
    ]
    if wanted:
        return wanted[0]
    move = builder_first(session)
    return move.figure, move.x, move.y, str(move.rotation), move.follower


def test_expansion_figures_by_clicks(browser, served):  # noqa: F811
    """A large follower, a builder and a pig are placed by clicks: the figure buttons
    show the supply; the builder's extra turn is announced."""
    session, url = served(
        Rules(expansions=("traders_builders", "inns_cathedrals")), ["random"], seed=9
    )
    page = open_play(browser, url)
    page.page.select_option("#bot-speed", "0")
    placed: list[str] = []
    while "extra" not in placed:
        figure, x, y, rot, loc = figure_first(session, placed)
        tile, figures = session.game.current_tile, session.legal_figures()
        rots = sorted(session.legal()[tile][f"{x},{y}"])
        spots = [f for f in session.legal()[tile][f"{x},{y}"][rot] if f is not None]
        spots += [
            f for fs in figures.get(tile, {}).get(f"{x},{y}", {}).get(rot, {}).values() for f in fs
        ]
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
        wait_until(page, f"(window.moves || 0) > {done}")
        played = session.game.to_record()["moves"][before]
        assert (
            played["x"],
            played["y"],
            played["rotation"],
            played["follower"],
            played.get("figure", "follower"),
        ) == (x, y, int(rot), loc, figure)
        if loc is not None and figure != "follower":
            placed.append(figure)
        if session.state()["extra_turn"]:
            placed.append("extra")
            assert page.page.locator("#extra").inner_text() == "your builder's extra turn"
            assert (
                page.page.locator("#message").inner_text().startswith("Your builder's extra turn")
            )
    assert {"large", "builder", "pig", "extra"} <= set(placed)
    figures = page.page.locator("#seats td.figures").all_inner_texts()
    assert figures == [
        ", ".join(f"{f} {n[f]}" for f in ("large", "builder", "pig"))
        for n in session.game.figures_in_supply
    ]
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
    wait_until(page, "(window.moves || 0) >= 1")
    record = session.record()
    assert len(record["moves"]) == moves + 1
    assert (
        record["moves"][-1]["x"],
        record["moves"][-1]["y"],
        record["moves"][-1]["follower"],
    ) == (choices[1]["x"], choices[1]["y"], choices[1]["follower"])
    assert page.errors == []


def test_a_stopped_server_is_said_not_waited_for(browser, served):  # noqa: F811
    """The server stops (Ctrl-C) while the page is open: the next move says so, with how
    to restart, instead of hanging on "waiting for the bots..." with an uncaught
    "Failed to fetch"; the board takes no more clicks."""
    session, url = served(Rules(), ["random"])
    page = open_play(browser, url)
    served.server.shutdown()  # as `serve` on Ctrl-C: the loop ends, the socket closes
    served.server.server_close()
    x, y, rot, _, rots, options = choose(session, 0)
    page.page.locator(f'rect.legal[data-x="{x}"][data-y="{y}"]').click()
    page.page.keyboard.press("Enter")
    if options != [None]:
        page.page.click("#no-follower")
    # (not `window.serverLost`: the function of that name is a global, defined at once)
    wait_until(page, "window.lostReason !== undefined", timeout=10)
    message = page.page.locator("#message")
    assert "game server stopped" in message.inner_text()
    assert "carcassonne play --human" in message.inner_text()
    assert "waiting" not in message.inner_text()
    assert "error" in message.get_attribute("class")
    assert page.page.locator("#lost").inner_text() == "the game server stopped"
    assert page.page.locator("rect.legal").count() == 0  # nothing to click any more
    assert page.page.locator("#hand button").count() == 0
    assert not page.page.locator("#actions").is_visible()
    assert not page.page.locator("#help").is_visible()
    box = page.page.locator("#board").bounding_box()
    page.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert "game server stopped" in message.inner_text()
    assert page.page.evaluate("busy") is False
    page.screenshot("play_server_stopped.png")
    # no uncaught error: only the browser's own note of the lost connection (refused, or
    # reset when a kept-alive socket of the stopped server closes under the request)
    assert not [e for e in page.errors if "Failed to fetch" in e or "Uncaught" in e]
    lost = ("ERR_CONNECTION_REFUSED", "ERR_CONNECTION_RESET")
    assert all(any(note in e for note in lost) for e in page.errors), page.errors


def shown_gains(button) -> dict[int, str]:
    """The "+N" of each colour a choice button shows."""
    gains = button.locator("b.gain")
    return {
        int(gains.nth(k).get_attribute("data-seat")): gains.nth(k).inner_text()
        for k in range(gains.count())
    }


def test_solo_choices_show_what_each_colour_really_scores(browser, served):  # noqa: F811
    """`scoring_order="player"`: a feature of a colour that is not lowest is worth points
    but scores 0; the button says 0 (and why), not the feature's points; the lowest
    colour is marked in the seats table."""
    session = solo_until(a_choice_scores_nothing)
    _, url = served(session.rules, [], session=session)
    page = open_play(browser, url)
    state = session.state()
    buttons = page.page.locator("#choices button")
    assert buttons.count() == len(state["choices"]) > 1
    for k, c in enumerate(state["choices"]):
        button = buttons.nth(k)
        assert button.get_attribute("data-gains") == ",".join(map(str, c["gains"]))
        assert shown_gains(button) == {p: f"+{c['gains'][p]}" for p in c["majority"]}
        scores_nothing = c["points"] and not any(c["gains"])
        assert button.locator(".not-lowest").count() == (1 if scores_nothing else 0)
        if scores_nothing:
            assert button.locator(".not-lowest").inner_text() == f"not lowest: 0 of {c['points']}"
    rows = page.page.locator("#seats tr[data-seat]")
    for p in range(3):
        low = p in state["lowest"]
        assert ("lowest" in (rows.nth(p).get_attribute("class") or "")) == low
        assert rows.nth(p).locator(".lowest-tag").count() == (1 if low else 0)
    assert "lowest" in page.page.locator("#message").inner_text()
    page.screenshot("play_solo_real_points.png")
    assert page.errors == []


def test_solo_end_bonus_shows_the_phase(browser, served):  # noqa: F811
    """The solo end bonus: the status shows the phase (the game has ended), not a turn
    and tiles left; a lowest colour's follower shows +2, the others +0."""
    session = solo_until(at_end_bonus)
    _, url = served(session.rules, [], session=session)
    page = open_play(browser, url)
    state = session.state()
    status = page.page.locator("#status")
    assert page.page.locator("#phase").inner_text() == "end bonus"
    assert "tiles left" not in status.inner_text() and "turn" not in status.inner_text()
    assert page.page.locator("#turn").count() == 0
    assert "the game has ended" in status.inner_text()
    assert page.page.locator("#message").inner_text().startswith("End bonus")
    buttons = page.page.locator("#choices button")
    for k, c in enumerate(state["choices"]):
        colour = c["majority"][0]
        want = "+2" if colour in state["lowest"] else "+0"
        assert shown_gains(buttons.nth(k)) == {colour: want}
    page.screenshot("play_solo_end_bonus.png")
    pick = next(k for k, c in enumerate(state["choices"]) if any(c["gains"]))
    first = len(session.game.events)
    buttons.nth(pick).click()
    wait_until(page, "(window.moves || 0) >= 1")
    event = session.game.events[first]  # the chosen follower's bonus: as the button said
    assert event.scorers == tuple(state["choices"][pick]["majority"]) and event.points == 2
    assert page.errors == []
