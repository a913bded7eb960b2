"""`tandem web`: the app in a browser through textual-serve, on loopback, keys working without a click.

The server is the real `tandem web` process; the browser side is its websocket protocol (stdin in,
terminal bytes out) and, where Chromium and ChromeDriver are installed, a headless Chromium.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual_serve", reason="tandem web needs the web extra (textual-serve)")
import aiohttp  # noqa: E402  (textual-serve's own dependency)

from tests.helpers.servers import free_port  # noqa: E402
from tests.helpers.waits import wait_until  # noqa: E402

TANDEM = Path(sys.executable).with_name("tandem")


@pytest.fixture
def web_server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    process = subprocess.Popen([str(TANDEM), "web", "--port", str(port), "--speed", "0"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            if process.poll() is not None:
                raise AssertionError(f"tandem web exited: {process.stdout.read() if process.stdout else ''}") from None
            time.sleep(0.1)
    yield url
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


def test_listens_on_loopback_only_by_default() -> None:
    from tandem.tui.cli.entry import build_parser

    args = build_parser().parse_args(["web"])
    assert args.host == "127.0.0.1"


async def _session_output(url: str, typed: str, until: bytes, seconds: float = 60) -> bytes:
    output = bytearray()
    async with aiohttp.ClientSession() as session:
        async with session.get(url + "/") as page:
            html = await page.text()
            assert page.status == 200
            assert "focusTerminal" in html and "fonts.googleapis.com" not in html
        async with session.ws_connect(url.replace("http", "ws") + "/ws?width=100&height=30") as websocket:
            await websocket.send_json(["resize", {"width": 100, "height": 30}])
            sent = False
            deadline = time.monotonic() + seconds
            while until not in output:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"{until!r} never arrived; last output: {bytes(output[-2000:])!r}")
                message = await websocket.receive(timeout=remaining)
                if message.type == aiohttp.WSMsgType.BINARY:
                    output += message.data
                elif message.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    raise AssertionError("the session closed")
                if not sent and b"idle" in output:
                    await websocket.send_json(["stdin", typed])
                    sent = True
    return bytes(output)


def test_a_browser_session_runs_the_app_and_takes_keys(web_server: str) -> None:
    # A hang guard over the whole session (the page's GET has no timeout of its own): seen once
    # under heavy load, stuck for 15 min, where a failure says more.
    output = asyncio.run(asyncio.wait_for(_session_output(web_server, "/demo chat\r", b"Scenario"), 120))
    assert b"idle" in output


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                    reason="headless Chromium and ChromeDriver are not installed (apt: chromium chromium-driver)")
def test_in_headless_chromium_keys_work_without_a_click(web_server: str, tmp_path: Path) -> None:
    """Load, type, approve by keyboard, screenshot. xterm.js draws on a canvas, so what the app did is
    read back from the thread it saved (the same data directory), not from the page."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium drives Chromium")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=1200,800"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.get(web_server + "/")
        wait_until(lambda: "-first-byte" in driver.execute_script("return document.body.className"), "the app's first frame",
                   seconds=30, every=0.2)
        # No click: the page gave the terminal the focus itself.
        assert driver.execute_script("return document.activeElement.className") == "xterm-helper-textarea"
        keys = driver.switch_to.active_element
        keys.send_keys("/demo delete\n")
        wait_until(lambda: "Approval requested" in _exported(tmp_path), "the approval requested", seconds=30, every=0.2)
        # The modal ignores keys for its guard time (and rings): press until the decision is saved;
        # a press after it only types into the composer.
        deadline = time.monotonic() + 30
        while "**approved** by" not in _exported(tmp_path):
            assert time.monotonic() < deadline, "the approval was never decided by keyboard"
            keys.send_keys("a")
            time.sleep(1.0)
        driver.save_screenshot(str(tmp_path / "tandem-web.png"))
        assert (tmp_path / "tandem-web.png").stat().st_size > 10_000
    finally:
        driver.quit()


def _chromium(tmp_path: Path, *, performance_log: bool = False):  # type: ignore[no-untyped-def]
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium drives Chromium")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=1200,800"):
        options.add_argument(flag)
    if performance_log:  # the websocket's frames, as the page received them
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                    reason="headless Chromium and ChromeDriver are not installed (apt: chromium chromium-driver)")
def test_in_headless_chromium_the_first_screen_shows_the_footers_keys(web_server: str, tmp_path: Path) -> None:
    """The welcome screen's footer, before any key or click. xterm.js draws on a canvas: what the
    page got is the terminal output its websocket received (Chromium's log of the frames), replayed
    into a terminal emulator (pyte) at the size the page asked for."""
    pyte = pytest.importorskip("pyte", reason="pyte replays the terminal output")
    driver = _chromium(tmp_path, performance_log=True)
    screen: Any = None
    stream: Any = None
    try:
        driver.get(web_server + "/")

        def footer() -> str:
            nonlocal screen, stream
            for entry in driver.get_log("performance"):
                message = json.loads(entry["message"])["message"]
                if message["method"] == "Network.webSocketFrameSent" and screen is None:
                    sent = message["params"]["response"]["payloadData"]
                    if sent.startswith('["resize"'):
                        size = json.loads(sent)[1]
                        screen = pyte.Screen(size["width"], size["height"])
                        stream = pyte.ByteStream(screen)
                elif message["method"] == "Network.webSocketFrameReceived" and stream is not None:
                    response = message["params"]["response"]
                    if response["opcode"] == 2:
                        stream.feed(base64.b64decode(response["payloadData"]))
            return screen.display[-1] if screen is not None and "idle" in "".join(screen.display) else ""

        shown = wait_until(lambda: "Quit" in (row := footer()) and "palette" in row and row, "the footer's keys",
                           seconds=30, every=0.2)
        assert "^q Quit" in shown
    finally:
        driver.quit()


def _exported(data_home: Path) -> str:
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    listing = subprocess.run([str(TANDEM), "threads"], env=env, capture_output=True, text=True).stdout.splitlines()
    if len(listing) < 2:
        return ""
    thread = listing[1].split()[0]
    return subprocess.run([str(TANDEM), "export", thread, "--format", "md"], env=env, capture_output=True, text=True).stdout


