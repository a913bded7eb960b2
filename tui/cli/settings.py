"""Every setting of one `tandem` command, decided once as it starts, then passed down.

`read_settings` reads the parsed arguments, the environment and the config file, each setting by
the one rule (`tui.cli.setting_rule`: flag > variable > config file > default), and returns a
frozen `Settings`. Nothing later reads `os.environ` for a setting, and nothing writes it:

| setting | flag | variable | config file | default |
|---|---|---|---|---|
| timeouts | `--connect-timeout` `--read-timeout` `--turn-timeout` | `TANDEM_*_TIMEOUT` | `[timeouts]` connect, read | `core.timeouts` |
| agent | `--url`, `--agent`, `--header` | `TANDEM_HEADERS` | `default_agent`, `[agents.*]` | the demo (`tui.cli.connection`) |
| theme | `--theme` | | `theme` | the app's |
| frame | `--frame-ms` | `TANDEM_FRAME_MS` | `frame_ms` | `tui.app.cadence.FRAME_SECONDS` |
| repaint | `--repaint` | `TANDEM_REPAINT` | `repaint` | `changes` |
| glyphs | `--glyphs` | `TANDEM_GLYPHS` | | what `$TERM` can show |
| bell | `--no-bell` | `TANDEM_BELL` | | on |
| images | `--images` | `TANDEM_IMAGES` | `images` | `auto` |
| stream share | | `TANDEM_STREAM_SHARE` | | `tui.app.frame_pacer.STREAM_SHARE` |
| picture hosts loaded unasked | | | `image_hosts` | none |
| attachment limits | | `TANDEM_ATTACH_MAX_FILE_MB`, `TANDEM_ATTACH_MAX_MESSAGE_MB` | `[attachments]` | `core.attachment_limits` |
| budgets | `--budget NAME=VALUE` | | `[budgets]` | `core.budgets.Budgets` |

A command reads only what it uses (`reach`, `display`), in this order, so that the first
problem is the one reported: the timeouts (every flag, then every variable), `--url`, the
headers, the continued thread's endpoint, the config file and the agent, then the display.
Main thread, once per command; light until the display is read (the app's start).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tandem.tui.app.cadence import FRAME_MS_RANGE, FRAME_SECONDS
from tandem.tui.cli.config import IMAGE_MODES, MAX_ATTACH_MB, ApprovalPolicy, Config, config_path, load_config
from tandem.tui.cli.connection import UNSET, Agent, settle_agent
from tandem.tui.cli.setting_rule import NOT_GIVEN, SettingError, Source, choice, decide, milliseconds, pick, seconds
from tandem.tui.cli.timeouts import TIMEOUT_ENV, Timeouts

if TYPE_CHECKING:
    from tandem.core.attachment_limits import AttachmentLimits
    from tandem.core.budgets import Budgets

__all__ = ["ATTACH_FILE_ENV", "ATTACH_MESSAGE_ENV", "Display", "FRAME_ENV", "HEADER_ENV", "IMAGES_ENV", "PROFILE_ENV", "Reach",
           "STREAM_SHARE_ENV", "Settings", "check_url", "parse_headers",
           "read_settings"]

HEADER_ENV = "TANDEM_HEADERS"
"""Extra request headers, newline-separated `Name: value` lines (never logged or stored)."""

FRAME_ENV = "TANDEM_FRAME_MS"
"""The environment variable that sets the repaint cadence when `--frame-ms` is not given."""

IMAGES_ENV = "TANDEM_IMAGES"
"""How pictures are drawn when `--images` is not given: auto, blocks or none."""

STREAM_SHARE_ENV = "TANDEM_STREAM_SHARE"
"""The share of a core painting a stream may use (0.01–1; 1 paints at every frame): slow machines and benchmarks."""

ATTACH_FILE_ENV = "TANDEM_ATTACH_MAX_FILE_MB"
ATTACH_MESSAGE_ENV = "TANDEM_ATTACH_MAX_MESSAGE_MB"
"""Megabytes an attached file, and all the attachments of one message, may hold."""

PROFILE_ENV = "TANDEM_PROFILE_RENDERS"
"""Benchmarks only: a file the app counts renders per painted frame into (`tui.terminal.render_profile`)."""

MAX_URL_LENGTH = 8192
"""Longest `--url` accepted (servers refuse longer request lines anyway)."""

Reach = Literal["none", "server", "agent"]
"""What a command talks to: nothing; the `--url` server with the command line's headers; or the
agent the connection rule settles (the config file read)."""

TIMEOUT_SOURCES = {
    name: Source(f"--{name}-timeout", variable, seconds, problem="{source}: {reason}", status=2)
    for name, variable in TIMEOUT_ENV.items()
}
"""Where each timeout may be given; a bad value is a usage error."""


@dataclass(frozen=True)
class Display:
    """How the app draws: read only for the app (a bad `$TANDEM_REPAINT` never stops `tandem ask`)."""

    frame_seconds: float
    """The bridge's frame: engine changes are painted at most this often."""
    repaint: str
    """`changes` (only the changed cells, paced by the link) or `all` (Textual's own output)."""
    glyphs: str
    """`unicode`, `linux` or `ascii` (`tui.terminal.glyphs`)."""
    bell: bool
    """Whether the bell rings when a turn waits on the person."""
    images: str = "auto"
    """`auto` (the best the terminal shows), `blocks` (half blocks everywhere) or `none` (alt text only)."""
    image_hosts: tuple[str, ...] = ()
    """Hosts whose pictures load without the person asking (the config file's `image_hosts`)."""
    profile_renders: str | None = None
    """`$TANDEM_PROFILE_RENDERS` (benchmarks only)."""
    stream_share: float | None = None
    """`$TANDEM_STREAM_SHARE`: the share of a core painting a stream may use (None: the pacer's own)."""


@dataclass(frozen=True)
class Settings:
    """Every setting one command runs with, decided once by `read_settings`; immutable, passed down.

    Holds resolved header values (in `agent`): its repr names the headers only.
    """

    timeouts: Timeouts = field(default_factory=Timeouts)
    agent: Agent = field(default_factory=lambda: Agent(url=None, headers={}))
    """The endpoint (None: the demo agent) and the headers to send."""
    speed: float = 1.0
    """The demo agent's pacing: 1 realistic, 0 instant."""
    theme: str | None = None
    approvals: Mapping[str, ApprovalPolicy] = field(default_factory=dict)
    """The config file's `[approvals]` (`tandem ask`'s policy; the app always asks)."""
    display: Display | None = None
    """How the app draws (None: the command draws no app)."""
    attachments: AttachmentLimits = field(default_factory=lambda: _default_limits())
    """How large attached files may be."""
    budgets: Budgets = field(default_factory=lambda: _default_budgets())
    """What one agent may send (`core.budgets`): `--budget` over the config file's `[budgets]`."""

    def client_options(self) -> dict[str, Any]:
        """`tui.cli.backend.build_chat_client`'s keyword arguments: the timeouts and the budgets."""
        return {**self.timeouts.client_options(), "budgets": self.budgets}

    @property
    def url(self) -> str | None:
        """The agent's endpoint; None: the embedded demo agent."""
        return self.agent.url

    @property
    def headers(self) -> dict[str, str]:
        """The headers to send (resolved: never print or store them)."""
        return dict(self.agent.headers)


def read_settings(args: Any, environ: Mapping[str, str], *, reach: Reach = "none", display: bool = False,
                  thread_url: Callable[[], Any] | None = None, config: Config | None = None) -> Settings:
    """The settings of the command `args` was parsed for (see the module's table and order).

    Args:
        args: The parsed arguments (`tui.cli.entry.build_parser`); a missing option is not given.
        environ: The process's environment, read here and nowhere else.
        reach: What the command talks to (`Reach`).
        display: Read the app's display settings too.
        thread_url: With `reach="agent"`: the URL the continued thread was saved with (None: the
            demo agent), or `UNSET` when no thread is continued; called once, before the config file is read.
        config: The configuration (default: read from its file, `$TANDEM_CONFIG` or the user's).

    Raises:
        SettingError: a flag or variable holds a bad value, `--url` is not an endpoint, or a header
            is not `Name: value` (`status`: the exit status).
        ConfigError: the config file is wrong, the agent unknown, or a secret unset (one line).
        ValueError: `--agent` with `--url`.
        LogStoreError: from `thread_url` (the thread to continue cannot be found).
    """
    flags = {name: source.from_flag(getattr(args, f"{name}_timeout", None)) for name, source in TIMEOUT_SOURCES.items()}
    variables = {name: source.from_environ(environ) if flags[name] is NOT_GIVEN else NOT_GIVEN
                 for name, source in TIMEOUT_SOURCES.items()}
    url: str | None = getattr(args, "url", None)
    if url is not None and (problem := check_url(url)) is not None:
        raise SettingError(problem, status=2)
    speed = float(getattr(args, "speed", 1.0))
    theme = getattr(args, "theme", None) or None
    if reach == "none":
        return Settings(timeouts=_timeouts(flags, variables, None), speed=speed, theme=theme)
    cli_headers = parse_headers(getattr(args, "header", None) or [], environ)
    if reach == "server":
        return Settings(timeouts=_timeouts(flags, variables, None), agent=Agent(url=url, headers=cli_headers),
                        speed=speed, theme=theme)
    saved_url = thread_url() if thread_url is not None else UNSET
    config = load_config(config_path(environ)) if config is None else config
    agent = settle_agent(url, getattr(args, "agent", None), cli_headers, config, environ, thread_url=saved_url)
    return Settings(
        budgets=_budgets(getattr(args, "budget", None) or [], config),
        timeouts=_timeouts(flags, variables, config),
        agent=agent,
        speed=speed,
        theme=theme or config.theme,
        approvals=dict(config.approvals),
        display=_display(args, environ, config) if display else None,
        attachments=_attachment_limits(environ, config),
    )


def _default_limits() -> AttachmentLimits:
    # Imported when a command reads its settings, not for `--help`.
    from tandem.core.attachment_limits import AttachmentLimits

    return AttachmentLimits()


def _megabytes(value: Any) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"a number of megabytes, not {str(value)[:40]!r}") from None
    if not 0 < number <= MAX_ATTACH_MB:
        raise ValueError(f"a number of megabytes above 0 (at most {MAX_ATTACH_MB}; got {number:g})")
    return number


def _attachment_limits(environ: Mapping[str, str], config: Config) -> AttachmentLimits:
    """The attachment limits: the variables, else the config file's `[attachments]`, else the defaults."""
    from tandem.core.attachment_limits import AttachmentLimits

    defaults, megabyte = AttachmentLimits(), 1024 * 1024
    per_file = pick(Source("$" + ATTACH_FILE_ENV, ATTACH_FILE_ENV, _megabytes), None, environ, config.attach_file_mb,
                    defaults.per_file / megabyte)
    per_message = pick(Source("$" + ATTACH_MESSAGE_ENV, ATTACH_MESSAGE_ENV, _megabytes), None, environ,
                       config.attach_message_mb, defaults.per_message / megabyte)
    return AttachmentLimits(per_file=int(per_file * megabyte), per_message=int(per_message * megabyte))
def _default_budgets() -> Budgets:
    from tandem.core.budgets import Budgets  # here: `--help` loads this module, not core's

    return Budgets()


def _budgets(flags: list[str], config: Config) -> Budgets:
    """The config file's `[budgets]`, then each `--budget NAME=VALUE` over it.

    Raises:
        SettingError: a flag names no budget or holds a bad value (a usage error).
    """
    from tandem.core.budgets import parse_budget

    values: dict[str, int] = dict(config.budgets)
    for flag in flags:
        try:
            name, value = parse_budget(flag)
        except ValueError as exc:
            raise SettingError(f"--budget {flag[:60]}: {exc}", status=2) from None
        values[name] = value
    try:
        return _default_budgets().with_values(values)
    except ValueError as exc:
        raise SettingError(f"--budget: {exc}", status=2) from None


def _timeouts(flags: dict[str, Any], variables: dict[str, Any], config: Config | None) -> Timeouts:
    configured = {"connect": config.connect_timeout, "read": config.read_timeout} if config is not None else {}
    defaults = Timeouts()
    return Timeouts(**{name: decide(flags[name], variables[name], configured.get(name), getattr(defaults, name))
                       for name in TIMEOUT_SOURCES})


def _display(args: Any, environ: Mapping[str, str], config: Config) -> Display:
    """The app's display settings (imports the app's modules that own their defaults and choices)."""
    from tandem.tui.app.attention import BELL_ENV, bell_enabled
    from tandem.tui.terminal.glyphs import GLYPH_ENV, GLYPH_SETS, choose_glyphs
    from tandem.tui.terminal.wire_output import REPAINT_CHOICES, REPAINT_ENV

    frame = Source("--frame-ms", FRAME_ENV, milliseconds(*FRAME_MS_RANGE))
    configured_frame = None if config.frame_ms is None else config.frame_ms / 1000
    frame_seconds = pick(frame, getattr(args, "frame_ms", None), environ, configured_frame, FRAME_SECONDS)
    repaint = pick(Source("--repaint", REPAINT_ENV, choice(REPAINT_CHOICES)), getattr(args, "repaint", None),
                   environ, config.repaint, "changes")
    by_term = choose_glyphs(None, {"TERM": environ.get("TERM", "")})  # what the terminal can show
    glyphs = pick(Source("--glyphs", GLYPH_ENV, choice(GLYPH_SETS)), getattr(args, "glyphs", None), environ, None, by_term)
    bell = Source("--no-bell", BELL_ENV, lambda value: value if isinstance(value, bool) else bell_enabled({BELL_ENV: value}))
    return Display(
        frame_seconds=frame_seconds,
        repaint=repaint,
        glyphs=glyphs,
        bell=pick(bell, False if getattr(args, "no_bell", False) else None, environ, None, True),
        images=pick(Source("--images", IMAGES_ENV, choice(IMAGE_MODES)), getattr(args, "images", None), environ,
                    config.images, "auto"),
        image_hosts=config.image_hosts,
        profile_renders=environ.get(PROFILE_ENV) or None,
        stream_share=_stream_share(environ),
    )


def _stream_share(environ: Mapping[str, str]) -> float | None:
    """`$TANDEM_STREAM_SHARE` read (None: unset, the pacer's own share)."""
    given = Source("", STREAM_SHARE_ENV, _share).from_environ(environ)
    return None if given is NOT_GIVEN else float(given)


def _share(value: Any) -> float:
    """A share of a core, from 0.01 to 1."""
    try:
        share = float(value)
    except ValueError:
        raise ValueError(f"a share of a core from 0.01 to 1, not {str(value)[:40]!r}") from None
    if not 0.01 <= share <= 1:
        raise ValueError(f"a share of a core from 0.01 to 1 (got {share:g})")
    return share


def parse_headers(values: list[str], environ: Mapping[str, str]) -> dict[str, str]:
    """`Name: value` strings, after the lines of `$TANDEM_HEADERS` → a header dict (a flag's wins).

    Raises:
        SettingError: a header is not of the form `Name: value` (the message names it by name only).
    """
    lines = [line for line in environ.get(HEADER_ENV, "").splitlines() if line.strip()]
    headers: dict[str, str] = {}
    for raw in [*lines, *values]:
        name, sep, value = raw.partition(":")
        if not sep or not name.strip() or any(c.isspace() for c in name.strip()):
            label = name.strip()[:40] or "(empty)"
            raise SettingError(f"bad header {label!r}: expected 'Name: value'", status=1)
        headers[name.strip()] = value.strip()
    return headers


def check_url(url: str) -> str | None:
    """Why `--url` cannot be an AG-UI endpoint (one line, quoting at most a little of it), or None."""
    from urllib.parse import urlsplit

    if not url.strip():
        return "--url is empty (leave it out to talk to the embedded demo agent)"
    if len(url) > MAX_URL_LENGTH:
        return f"--url is {len(url)} characters long (at most {MAX_URL_LENGTH})"
    if any(not char.isprintable() or char.isspace() for char in url):
        return "--url holds control characters or spaces"
    shown = re.sub(r"//[^/@]*@", "//…@", url)  # never echo credentials
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    try:
        parts = urlsplit(url)
        port = parts.port  # raises for a port that is not a number or above 65535
    except ValueError as exc:
        return f"--url {shown!r} is not a valid URL: {exc}"
    if parts.scheme not in ("http", "https"):
        return f"--url {shown!r} must start with http:// or https://"
    if not parts.hostname:
        return f"--url {shown!r} has no host"
    del port
    return None
