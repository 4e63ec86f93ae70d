"""The replay page treats a stranger's record as text (issue 75): markup and `</script>`
in every string the page shows (bots, an annotation's agent, labels, followers and tiles,
the coach's bot), in `--title` and in the output file's name are shown literally and run
nothing, even with the page's Content-Security-Policy switched off; the policy on its own
stops injected handlers and network loads. The browser tests use the system Chromium
(tests/support/browser.py) and skip without it."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest

from carcassonne_env import Game
from carcassonne_env.cli import main
from carcassonne_env.viewer import view_html
from tests.support.browser import browser  # noqa: F401 (fixture)


def img(tag: str) -> str:
    return f"<img src=x onerror=console.error('pwned:{tag}')>"


def script(tag: str) -> str:
    return f"</script><script>console.error('pwned:{tag}')</script>"


def both(tag: str) -> str:
    return f"{img(tag)}{script(tag)}&amp;<!--"


TITLE = both("title")
FILE_NAME = f"{img('file')}.html"  # a file name holds no "/"


def hostile_record() -> dict:
    """A 4-move game whose every shown string is a payload (names of at most 64
    characters hold one payload each)."""
    game = Game(seed=1)
    for _ in range(4):
        game.play(game.legal_moves()[0])
    record = game.to_record()
    record["bots"] = [both("bot0"), both("bot1")]
    notes = []
    for move in record["moves"]:
        cell = {"x": move["x"], "y": move["y"], "rotation": move["rotation"]}
        top = [
            dict(
                cell,
                follower=img("follower"),
                tile=script("tile"),
                weight=0.5,
                label=both("label"),
                score=1.0,
            ),
            dict(
                cell,
                follower=script("follower"),
                tile=img("tile"),
                weight=0.5,
                label=both("label"),
                score=0.5,
            ),
        ]
        notes.append(
            {
                "agent": both("agent"),
                "kind": "scores",
                "value": 1.0,
                "top": top,
                "coach": {
                    "bot": both("coach"),
                    "points_lost": 0.5,
                    "best": dict(cell, follower=img("best"), tile=script("best")),
                    "text": both("text"),
                },
            }
        )
    record["annotations"] = {"version": 1, "moves": notes}
    return json.loads(json.dumps(record))


# ------------------------------------------------------------------ the HTML file


def inline_scripts(html: str) -> list[str]:
    return re.findall(r"<script>(.*?)</script>", html, re.DOTALL)


def test_strings_reach_the_file_escaped():
    html = view_html(hostile_record(), title=TITLE)
    scripts = inline_scripts(html)
    assert len(scripts) == 2 and html.count("<script") == 2  # the page's own two only
    assert html.count("<img") == 0 and html.count("</script") == 2
    data = scripts[1]
    assert not set("<>&") & set(data.split("const D = ", 1)[1].split(";\n", 1)[0])
    escaped_title = (
        "&lt;img src=x onerror=console.error(&#x27;pwned:title&#x27;)&gt;"
        "&lt;/script&gt;&lt;script&gt;console.error(&#x27;pwned:title&#x27;)"
        "&lt;/script&gt;&amp;amp;&lt;!--"
    )
    assert f"<title>{escaped_title}</title>" in html
    assert f"<h1>{escaped_title}</h1>" in html


def test_a_title_holding_a_placeholder_stays_text():
    html = view_html(hostile_record(), title="/*DATA*/null __TITLE__ __SCRIPT_HASHES__")
    assert "<title>/*DATA*/null __TITLE__ __SCRIPT_HASHES__</title>" in html


def test_the_policy_allows_the_page_scripts_only():
    html = view_html(hostile_record(), title=TITLE)
    policies = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    assert len(policies) == 1
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
        for s in inline_scripts(html)
    )
    assert policies[0] == (
        f"default-src 'none'; script-src {hashes}; style-src "
        "'unsafe-inline'; img-src data:; base-uri 'none'; "
        "form-action 'none'"
    )
    assert html.index("Content-Security-Policy") < html.index("<title>")


# ------------------------------------------------------------------ in the browser


@pytest.fixture(scope="module")
def hostile_pages(tmp_path_factory):
    """The page with --title, and the page titled after its file's name (both written
    by `carcassonne view`)."""
    folder = tmp_path_factory.mktemp("hostile")
    src = folder / "evil.json"
    src.write_text(json.dumps(hostile_record()))
    titled, named = folder / "titled.html", folder / FILE_NAME
    assert main(["view", str(src), "-o", str(titled), "--title", TITLE]) == 0
    assert main(["view", str(src), "-o", str(named)]) == 0
    return {"titled": titled, "named": named}


class Opened:
    """A page, opened in a context that obeys the page's policy or ignores it, with the
    console errors, uncaught exceptions and dialogs it produced."""

    def __init__(self, browser, path, bypass_csp: bool) -> None:  # noqa: F811
        self.page = browser.new_page(
            bypass_csp=bypass_csp, viewport={"width": 1300, "height": 1000}
        )
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_function("window.viewerReady === true")


def visit_every_turn(page: Opened) -> list[str]:
    """The turn and insight panels' text at each turn, from the first to the last."""
    texts = []
    page.page.keyboard.press("Home")
    for _ in range(5):
        texts.append(
            page.page.locator("#turn-info").inner_text()
            + "\n"
            + page.page.locator("#insight").inner_text()
        )
        page.page.keyboard.press("ArrowRight")
    return texts


def nothing_ran(page: Opened) -> None:
    assert [e for e in page.errors if "pwned" in e] == []
    assert page.dialogs == []
    assert page.page.evaluate("document.querySelectorAll('img').length") == 0
    assert page.page.evaluate("document.scripts.length") == 2


@pytest.mark.parametrize("bypass_csp", [True, False], ids=["policy off", "policy on"])
def test_hostile_strings_are_shown_as_text_and_run_nothing(
    browser,  # noqa: F811
    hostile_pages,
    bypass_csp,
):
    page = Opened(browser, hostile_pages["titled"], bypass_csp)
    texts = visit_every_turn(page)
    page.page.keyboard.press("Home")
    assert page.page.title() == TITLE
    assert page.page.locator("h1").inner_text() == TITLE
    seats = page.page.locator("#seats").inner_text()
    assert f"red ({both('bot0')})" in seats and f"blue ({both('bot1')})" in seats
    assert f"{both('agent')} (scores), value 1.000" in texts[0]
    assert f"[{script('tile')}], follower on the {img('follower').split(':')[0]} " in texts[0]
    assert f": {both('label')}" in texts[0]
    assert f"coach {both('coach')}: best " in texts[0]
    assert all(both("agent") in t for t in texts[:4]) and "no annotation" in texts[4]
    assert both("agent") in page.page.locator(".value-fig").inner_text()
    assert both("coach") in page.page.locator("#coach-name").inner_text()
    heat = page.page.locator("rect.heat-cell title").all_text_contents()
    assert heat and all(both("label") in t for t in heat)
    nothing_ran(page)
    assert page.errors == []  # not even a refusal by the policy: nothing tried to run
    page.page.context.close()


def test_the_file_name_is_shown_as_text(browser, hostile_pages):  # noqa: F811
    page = Opened(browser, hostile_pages["named"], bypass_csp=True)
    title = f"Carcassonne replay: {img('file')}"
    assert page.page.title() == title
    assert page.page.locator("h1").inner_text() == title
    nothing_ran(page)
    assert page.errors == []
    page.page.context.close()


def test_the_policy_stops_injected_handlers_and_network_loads(browser, hostile_pages):  # noqa: F811
    """Markup put into the page by other means (a bug, an extension) still cannot run a
    handler or reach the network."""
    page = Opened(browser, hostile_pages["titled"], bypass_csp=False)
    page.page.evaluate("""() => {
      window.violations = [];
      document.addEventListener("securitypolicyviolation",
                                e => window.violations.push(e.effectiveDirective));
      document.body.insertAdjacentHTML("beforeend",
        '<img src="x" onerror="console.error(\\'pwned:injected\\')">' +
        '<img src="https://example.com/x.png">');
    }""")
    page.page.wait_for_function("window.violations.length >= 3")
    assert sorted(set(page.page.evaluate("window.violations"))) == ["img-src", "script-src-attr"]
    assert [e for e in page.errors if "pwned" in e] == [] and page.dialogs == []
    page.page.context.close()
