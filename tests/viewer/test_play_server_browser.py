"""Another site's page in a real browser (headless Chromium) cannot play, read or frame
the play server's game (`carcassonne play --human`). Skips without Playwright or
Chromium."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from carcassonne_env import Rules, make_bot
from carcassonne_env.viewer.play import HumanSession, make_server
from tests.support.browser import Page, browser  # noqa: F401 (fixture)
from tests.support.play_sessions import first_legal


class _Blank(BaseHTTPRequestHandler):
    """Another site: an empty page on another port (another origin)."""

    def do_GET(self) -> None:  # noqa: N802
        body = b"<!DOCTYPE html><title>another site</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def two_sites():
    """(play server, the other site's address), both running."""
    session = HumanSession(Rules(), [make_bot("random", seed=0)], seed=4)
    servers = [make_server(session), ThreadingHTTPServer(("127.0.0.1", 0), _Blank)]
    for server in servers:
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
    yield servers[0], f"http://localhost:{servers[1].server_address[1]}/"
    for server in servers:
        server.shutdown()
        server.server_close()


def test_another_site_cannot_play_read_or_frame_the_game(browser, two_sites):  # noqa: F811
    served, other = two_sites
    session = served.session
    x, y, r, f, _ = first_legal(session)
    page = Page(browser)
    page.page.goto(other)
    base = served.url.split("?")[0]
    # a "simple" cross-site POST (no preflight) and one with the JSON type (preflight)
    sent = page.page.evaluate(
        """async ([base, move]) => {
        const out = [];
        for (const init of [{mode: "no-cors", headers: {"Content-Type": "text/plain"}},
                            {headers: {"Content-Type": "application/json"}}]) {
          try { const r = await fetch(base + "move", {method: "POST", body: move, ...init});
                out.push(r.type); }
          catch (e) { out.push(e.name); }
        }
        return out;
    }""",
        [base, f'{{"x": {x}, "y": {y}, "rotation": {r}, "follower": null}}'],
    )
    # both fail in the page: the first reached the server, whose answer (a refusal) the
    # browser hides from another site (Cross-Origin-Resource-Policy); the second was
    # stopped at its preflight (OPTIONS: no CORS allowed)
    assert sent == ["TypeError", "TypeError"]
    assert "Failed to load resource: net::ERR_BLOCKED_BY_RESPONSE.NotSameOrigin" in page.errors
    assert any("preflight" in e for e in page.errors)
    assert session.game.turn == 0
    # reading the page (its token) or the state across sites: refused by the browser
    read = page.page.evaluate(
        """async (url) => {
        try { await (await fetch(url)).text(); return "read"; } catch (e) { return e.name; }
    }""",
        served.url,
    )
    assert read == "TypeError"
    # framing: the browser refuses to show the game inside another site's page
    page.page.set_content(f'<iframe id="game" src="{served.url}"></iframe>')
    refused = "violates the following Content Security Policy directive: \"frame-ancestors 'none'\""
    for _ in range(100):  # the refusal is logged once the frame's answer came
        if any(refused in e for e in page.errors):
            break
        page.page.wait_for_timeout(50)
    assert any(refused in e for e in page.errors), page.errors
    assert page.page.frame_locator("#game").locator("#board").count() == 0
