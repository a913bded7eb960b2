"""The configuration file: named agents, the default agent, theme, terminal output, timeouts, budgets, approval policy.

`config.toml` in the platformdirs config directory (`$XDG_CONFIG_HOME/tandem/` on Linux;
`TANDEM_CONFIG` names another file), read with `tomllib`. Tandem never writes it. A missing
file is an empty configuration. Example:

    default_agent = "research"
    theme = "dark"
    frame_ms = 100        # repaint streaming text at most every 100 ms (default: tui.app.cadence)
    repaint = "changes"   # "all": Textual's own output instead of only the changed cells
    images = "auto"       # pictures: "auto" (the best the terminal shows), "blocks" (half blocks), "none"
    image_hosts = ["cdn.example.com"]  # an agent's pictures from these hosts load without asking

    [attachments]         # megabytes of attached files (defaults: core.attachment_limits)
    max_file_mb = 10
    max_message_mb = 20

    [timeouts]            # seconds
    connect = 10
    read = 120

    [budgets]             # what one agent may send (core.budgets lists them and their defaults)
    message_bytes = "8M"
    tool_calls = 5000

    [approvals]           # per tool name: "ask" (the default), "approve" or "reject"
    get_weather = "approve"
    delete_file = "ask"

    [agents.research]
    url = "https://agents.example.com/research"
    headers = { Authorization = "env:RESEARCH_TOKEN", "X-Team" = "docs" }

A header value is a literal, `env:VAR` (the variable holds the whole value, e.g.
`Bearer abc…`) or `keyring:SERVICE/USERNAME` (the system keyring, when the `keyring` package
is importable). Secrets only by reference: a literal value is refused for a header whose name
says it carries a credential (`Authorization`, `Cookie`, `…token…`, `…key…`, `…secret…`).
Resolved values are never printed, logged, stored or quoted in an error.

Every problem is one `ConfigError` line naming the file, the key and what was expected.
Imports nothing heavy: the CLI loads it before deciding what to start.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tandem.tui.app.cadence import FRAME_MS_RANGE

__all__ = [
    "AgentConfig",
    "ApprovalPolicy",
    "Config",
    "ConfigError",
    "CONFIG_ENV",
    "config_path",
    "load_config",
    "resolve_headers",
    "reference_kind",
]

CONFIG_ENV = "TANDEM_CONFIG"
"""An environment variable naming the configuration file to read instead of the default one."""

ApprovalPolicy = Literal["ask", "approve", "reject"]
_POLICIES: tuple[ApprovalPolicy, ...] = ("ask", "approve", "reject")
_THEMES = ("dark", "light", "high-contrast")
_REPAINTS = ("changes", "all")  # as `tui.terminal.wire_output.REPAINT_CHOICES` (not imported: this module stays light)
IMAGE_MODES = ("auto", "blocks", "none")
_HOST = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$")
"""How pictures are drawn (`--images`): the best the terminal supports, half blocks, or not at all (alt text only)."""
MAX_ATTACH_MB = 1024
"""The largest attachment limit the config, a flag or a variable may set (megabytes)."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_SECRET_HEADER = re.compile(r"authorization|cookie|token|key|secret|password|credential|auth", re.IGNORECASE)


class ConfigError(Exception):
    """A problem with the configuration: one line naming the file, the key and what was expected.

    The message never contains a header's value (a resolved secret or a literal one).
    """


@dataclass(frozen=True)
class AgentConfig:
    """One `[agents.NAME]` table: the endpoint and its headers as written (references unresolved)."""

    name: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    """Header name → a literal value or a reference (`env:VAR`, `keyring:SERVICE/USERNAME`)."""


@dataclass(frozen=True)
class Config:
    """The whole configuration file, checked. Owns nothing but values; resolve headers on demand."""

    path: Path
    agents: dict[str, AgentConfig] = field(default_factory=dict)
    default_agent: str | None = None
    theme: str | None = None
    frame_ms: float | None = None
    """How often streaming text is repainted at most, in milliseconds (`--frame-ms` and `$TANDEM_FRAME_MS` win)."""
    repaint: str | None = None
    """`changes` or `all` (`--repaint` and `$TANDEM_REPAINT` win)."""
    connect_timeout: float | None = None
    read_timeout: float | None = None
    approvals: dict[str, ApprovalPolicy] = field(default_factory=dict)
    """Tool name → what to do when the agent asks to run it."""
    images: str | None = None
    """`auto`, `blocks` or `none` (`--images` and `$TANDEM_IMAGES` win)."""
    image_hosts: tuple[str, ...] = ()
    """Hosts whose pictures (A2UI `Image` URLs) load without the person asking first."""
    attach_file_mb: float | None = None
    """`[attachments] max_file_mb` ($TANDEM_ATTACH_MAX_FILE_MB wins)."""
    attach_message_mb: float | None = None
    """`[attachments] max_message_mb` ($TANDEM_ATTACH_MAX_MESSAGE_MB wins)."""
    budgets: dict[str, int] = field(default_factory=dict)
    """The `[budgets]` table: budget name → value (`core.budgets`; `--budget` wins)."""

    def agent(self, name: str) -> AgentConfig:
        """The agent called `name`.

        Raises:
            ConfigError: there is no such agent (the message lists the ones there are).
        """
        if name in self.agents:
            return self.agents[name]
        known = ", ".join(sorted(self.agents)) or "none"
        raise ConfigError(f"{self.path}: agents.{name}: no such agent (configured: {known})")


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The configuration file: `TANDEM_CONFIG`, else `config.toml` in the user config directory."""
    env = os.environ if environ is None else environ
    override = env.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("tandem", appauthor=False)) / "config.toml"


def load_config(path: Path | None = None) -> Config:
    """Read and check the configuration file; a missing file is an empty configuration.

    Raises:
        ConfigError: the file cannot be read, is not TOML, or a key holds the wrong thing.
    """
    path = config_path() if path is None else path
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config(path=path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text: expected a TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message names the line and column, never more than the offending character.
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return _Checker(path).config(data)


def reference_kind(value: str) -> Literal["env", "keyring", "literal"]:
    """Whether a header value is an `env:` or `keyring:` reference or a literal."""
    if value.startswith("env:"):
        return "env"
    if value.startswith("keyring:"):
        return "keyring"
    return "literal"


def resolve_headers(agent: AgentConfig, path: Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The agent's headers with every reference replaced by its value.

    Raises:
        ConfigError: a variable is unset or empty, `keyring` is not installed, or the keyring
            holds no such entry. The message names the reference, never a value.
    """
    env = os.environ if environ is None else environ
    resolved: dict[str, str] = {}
    for name, value in agent.headers.items():
        key = f"agents.{agent.name}.headers.{name}"
        kind = reference_kind(value)
        if kind == "env":
            variable = value[len("env:") :]
            secret = env.get(variable)
            if not secret:
                raise ConfigError(f"{path}: {key}: expected the environment variable {variable} to be set")
            resolved[name] = secret
        elif kind == "keyring":
            resolved[name] = _from_keyring(value[len("keyring:") :], key, path)
        else:
            resolved[name] = value
        if any(c in resolved[name] for c in "\r\n\0"):
            raise ConfigError(f"{path}: {key}: expected a value on one line (the {kind} value holds a line break)")
    return resolved


def _from_keyring(reference: str, key: str, path: Path) -> str:
    service, _, username = reference.partition("/")
    try:
        import keyring  # optional: only where the user installed it
        from keyring.errors import KeyringError
    except ImportError:
        raise ConfigError(f"{path}: {key}: expected the `keyring` package to be installed for keyring: references") from None
    try:
        secret = keyring.get_password(service, username)
    except KeyringError as exc:
        raise ConfigError(f"{path}: {key}: the system keyring failed: {type(exc).__name__}") from None
    if not secret:
        raise ConfigError(f"{path}: {key}: expected a keyring entry for service {service!r}, user {username!r}")
    return str(secret)


class _Checker:
    """Turns parsed TOML into a `Config`, failing on the first key that holds the wrong thing."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, expected: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: expected {expected}")

    def table(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, "a table")
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "a non-empty string")
        return value

    def seconds(self, value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 86_400:
            raise self.fail(key, "a number of seconds above 0 (at most 86400)")
        return float(value)

    def config(self, data: dict[str, Any]) -> Config:
        known = {"default_agent", "theme", "frame_ms", "repaint", "timeouts", "approvals", "agents", "images", "attachments",
                 "image_hosts", "budgets"}
        for key in data:
            if key not in known:
                raise self.fail(key, f"one of the keys {', '.join(sorted(known))}")
        agents = {name: self.agent(name, table) for name, table in self.table(data.get("agents", {}), "agents").items()}
        default = data.get("default_agent")
        if default is not None:
            default = self.string(default, "default_agent")
            if default not in agents:
                raise self.fail("default_agent", f"the name of an [agents.NAME] table (configured: {', '.join(sorted(agents)) or 'none'})")
        theme = data.get("theme")
        if theme is not None and theme not in _THEMES:
            raise self.fail("theme", f"one of {', '.join(_THEMES)}")
        frame_ms = data.get("frame_ms")
        low, high = FRAME_MS_RANGE
        if frame_ms is not None and (isinstance(frame_ms, bool) or not isinstance(frame_ms, int | float)
                                     or not low <= frame_ms <= high):
            raise self.fail("frame_ms", f"a number of milliseconds between {low:g} and {high:g}")
        repaint = data.get("repaint")
        if repaint is not None and repaint not in _REPAINTS:
            raise self.fail("repaint", f"one of {', '.join(_REPAINTS)}")
        images = data.get("images")
        if images is not None and images not in IMAGE_MODES:
            raise self.fail("images", f"one of {', '.join(IMAGE_MODES)}")
        image_hosts = data.get("image_hosts", [])
        if not isinstance(image_hosts, list) or not all(isinstance(h, str) and _HOST.match(h) for h in image_hosts):
            raise self.fail("image_hosts", "a list of host names (letters, digits, '-' and '.')")
        attachments = self.table(data.get("attachments", {}), "attachments")
        for key, value in attachments.items():
            if key not in ("max_file_mb", "max_message_mb"):
                raise self.fail(f"attachments.{key}", "only the keys max_file_mb and max_message_mb")
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_ATTACH_MB:
                raise self.fail(f"attachments.{key}", f"a number of megabytes above 0 (at most {MAX_ATTACH_MB})")
        timeouts = self.table(data.get("timeouts", {}), "timeouts")
        for key in timeouts:
            if key not in ("connect", "read"):
                raise self.fail(f"timeouts.{key}", "only the keys connect and read")
        approvals: dict[str, ApprovalPolicy] = {}
        for tool, policy in self.table(data.get("approvals", {}), "approvals").items():
            if policy not in _POLICIES:
                raise self.fail(f"approvals.{tool}", f"one of {', '.join(_POLICIES)}")
            approvals[tool] = policy
        from tandem.core.budgets import Budgets, parse_budget  # here: `--help` loads this module, not core's

        budgets: dict[str, int] = {}
        for name, value in self.table(data.get("budgets", {}), "budgets").items():
            try:
                key, number = parse_budget(f"{name}={value}")
                Budgets().with_values({key: number})
            except ValueError as exc:
                raise self.fail(f"budgets.{name}", str(exc)) from None
            budgets[key] = number
        return Config(
            budgets=budgets,
            path=self.path,
            agents=agents,
            default_agent=default,
            theme=theme,
            frame_ms=None if frame_ms is None else float(frame_ms),
            repaint=repaint,
            connect_timeout=self.seconds(timeouts["connect"], "timeouts.connect") if "connect" in timeouts else None,
            read_timeout=self.seconds(timeouts["read"], "timeouts.read") if "read" in timeouts else None,
            approvals=approvals,
            images=images,
            image_hosts=tuple(host.lower() for host in image_hosts),
            attach_file_mb=attachments.get("max_file_mb"),
            attach_message_mb=attachments.get("max_message_mb"),
        )

    def agent(self, name: str, value: Any) -> AgentConfig:
        key = f"agents.{name}"
        if not _NAME.match(name):
            raise self.fail(key, "a name of letters, digits, '-', '_' or '.' (at most 64)")
        table = self.table(value, key)
        for field_name in table:
            if field_name not in ("url", "headers"):
                raise self.fail(f"{key}.{field_name}", "only the keys url and headers")
        url = self.string(table.get("url"), f"{key}.url")
        if not url.startswith(("http://", "https://")):
            raise self.fail(f"{key}.url", "an http:// or https:// URL")
        headers: dict[str, str] = {}
        for header, header_value in self.table(table.get("headers", {}), f"{key}.headers").items():
            header_key = f"{key}.headers.{header}"
            if not _HEADER_NAME.match(header):
                raise self.fail(header_key, "a header name (letters, digits and -)")
            if not isinstance(header_value, str):
                raise self.fail(header_key, "a string: a literal, env:VAR or keyring:SERVICE/USERNAME")
            kind = reference_kind(header_value)
            if kind == "literal" and _SECRET_HEADER.search(header):
                raise self.fail(header_key, "a reference (env:VAR or keyring:SERVICE/USERNAME): secrets are never written in the file")
            if kind == "env" and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", header_value[4:]):
                raise self.fail(header_key, "env: followed by a variable name")
            if kind == "keyring" and "/" not in header_value[8:]:
                raise self.fail(header_key, "keyring:SERVICE/USERNAME")
            headers[header] = header_value
        return AgentConfig(name=name, url=url, headers=headers)
