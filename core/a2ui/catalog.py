"""The basic catalog we render, its two ids, its functions and the capabilities we advertise.

a2ui-core owns the catalog (component schemas, the 14 basic functions); this module only names
it, maps the id the wild also uses onto the canonical one, and builds the context entry that
AG-UI's A2UI adapters read to learn which components the client renders.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

# a2ui-core is imported when the first surface (or the first request) needs it: its basic
# catalog alone costs ~0.25 s of start-up, which a resumed thread must not pay before its
# first frame.
if TYPE_CHECKING:
    from a2ui.core import MessageProcessor
    from a2ui.core.catalog import CatalogApi

__all__ = [
    "BASIC_CATALOG_ID",
    "BASIC_CATALOG_ALIASES",
    "BASIC_COMPONENT_TYPES",
    "BASIC_FUNCTIONS",
    "COMPONENT_SCHEMA_DESCRIPTION",
    "CatalogProfile",
    "MINIMAL_CATALOG_ID",
    "PROTOCOL_VERSION",
    "catalog_profile",
    "basic_catalog",
    "canonical_catalog_id",
    "new_processor",
    "capabilities",
    "capabilities_context_entry",
    "CAPABILITIES_FILE",
    "generate_capabilities",
    "write_capabilities_file",
    "has_capabilities_entry",
]

PROTOCOL_VERSION = "v0.9"
"""The A2UI protocol version Tandem speaks."""

BASIC_CATALOG_ID = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
"""The basic catalog's id, as a2ui-core names it."""

BASIC_CATALOG_ALIASES = frozenset({BASIC_CATALOG_ID, "https://a2ui.org/specification/v0_9/basic_catalog.json"})
"""Every id that names the v0.9 basic catalog in the wild."""

BASIC_COMPONENT_TYPES = (
    "Text", "Image", "Icon", "Video", "AudioPlayer", "Row", "Column", "List", "Card", "Tabs",
    "Modal", "Divider", "Button", "TextField", "CheckBox", "ChoicePicker", "Slider", "DateTimeInput",
)  # fmt: skip
"""The basic catalog's 18 components: any other type renders as a labelled fallback."""

BASIC_FUNCTIONS = frozenset({
    "required", "regex", "length", "numeric", "email", "formatString", "formatNumber",
    "formatCurrency", "formatDate", "pluralize", "openUrl", "and", "or", "not",
})  # fmt: skip
"""The functions a `functionCall` action may run: the basic catalog's, nothing else."""

MINIMAL_CATALOG_ID = "https://a2ui.org/specification/v0_9/catalogs/minimal/catalog.json"
"""The v0.9 minimal catalog: five of the basic components and one function, `capitalize`."""

MINIMAL_COMPONENT_TYPES = ("Text", "Row", "Column", "Button", "TextField")
MINIMAL_FUNCTIONS = frozenset({"capitalize"})


@dataclasses.dataclass(frozen=True)
class CatalogProfile:
    """What one catalog Tandem renders allows: its component types and its functions.

    The minimal catalog's components are the basic ones (same schemas, checked by a2ui-core's
    basic catalog); only the names a surface may use differ, and Tandem checks those itself.
    """

    catalog_id: str
    name: str
    component_types: tuple[str, ...]
    functions: frozenset[str]


_PROFILES = {
    BASIC_CATALOG_ID: CatalogProfile(BASIC_CATALOG_ID, "basic", BASIC_COMPONENT_TYPES, BASIC_FUNCTIONS),
    MINIMAL_CATALOG_ID: CatalogProfile(MINIMAL_CATALOG_ID, "minimal", MINIMAL_COMPONENT_TYPES, MINIMAL_FUNCTIONS),
}


def catalog_profile(catalog_id: object) -> CatalogProfile | None:
    """The catalog `catalog_id` names (either basic id, or the minimal one), None if Tandem lacks it."""
    if not isinstance(catalog_id, str):
        return None
    if catalog_id in BASIC_CATALOG_ALIASES:
        return _PROFILES[BASIC_CATALOG_ID]
    return _PROFILES.get(catalog_id)


COMPONENT_SCHEMA_DESCRIPTION = (
    "A2UI Component Schema — available components for generating UI surfaces. "
    "Use these component names and properties when creating A2UI operations."
)
"""The description AG-UI's A2UI adapters look for among the request's context entries."""


@functools.cache
def basic_catalog() -> CatalogApi:
    """The v0.9 basic catalog (built once; a2ui-core copies it per processor)."""
    from a2ui.core.basic_catalog import BasicCatalog
    from a2ui.core.resolution import MissingDataBindingWarning

    # An incremental stream binds inputs to paths the data model does not hold yet: that is
    # normal, not worth a warning per render.
    warnings.filterwarnings("ignore", category=MissingDataBindingWarning)
    return BasicCatalog(PROTOCOL_VERSION)


def canonical_catalog_id(catalog_id: str | None) -> str | None:
    """The id a2ui-core knows for `catalog_id`: either basic-catalog id becomes the canonical one."""
    if catalog_id is None or catalog_id in BASIC_CATALOG_ALIASES:
        return BASIC_CATALOG_ID
    return catalog_id


def _capitalize(args: dict[str, Any], context: Any = None, abort_signal: Any = None) -> str:
    value = args.get("value")
    text = "" if value is None else str(value)
    return text[:1].upper() + text[1:]


@functools.cache
def rendering_catalog() -> CatalogApi:
    """The catalog surfaces are processed with: the basic one plus the minimal catalog's
    `capitalize` (built once). Which functions a surface may call is Tandem's check, per
    catalog (`CatalogProfile.functions`); the advertised capabilities stay the basic catalog."""
    from a2ui.core.catalog import Catalog
    from a2ui.core.catalog.functions import FunctionApi, create_function_implementation
    from a2ui.core.schema.v0_9.common_types import DynamicString, StrictBaseModel
    from pydantic import Field

    class CapitalizeArgs(StrictBaseModel):
        value: DynamicString = Field(..., description="The string to capitalize.")

    class CapitalizeApi(FunctionApi):
        name = "capitalize"
        schema = CapitalizeArgs
        return_type = "string"
        description = "Converts an input string to a capitalized version."

    from a2ui.core.basic_catalog.v0_9 import Theme

    basic = basic_catalog()
    functions = [*basic.functions.values(), create_function_implementation(CapitalizeApi, _capitalize)]
    return Catalog(  # as a2ui-core's BasicCatalog builds itself, plus one function
        basic.id,
        PROTOCOL_VERSION,
        components=list(basic.components.values()),
        functions=functions,  # type: ignore[arg-type]
        theme_model=Theme,
        common_types_uri="https://a2ui.org/specification/v0_9/common_types.json",
        theme_location="$defs",
        union_defs={"anyComponent": None, "anyFunction": None},
    )


def new_processor() -> MessageProcessor:
    """A message processor over the rendering catalog, validating with the RELAXED settings.

    The strict settings reject ordinary incremental streams (a root that arrives later, children
    not yet sent), so they are never used for what an agent streams; Tandem adds the checks of
    the strict reading that do not depend on order itself (`tandem.core.a2ui.validation`).
    """
    from a2ui.core import MessageProcessor, MessageProcessorOptions, RELAXED_VALIDATION

    return MessageProcessor([rendering_catalog()], options=MessageProcessorOptions(validation_config=RELAXED_VALIDATION))


CAPABILITIES_FILE = Path(__file__).with_name("capabilities.json")
"""The capabilities as a2ui-core generated them, and that a2ui-core's version.

Every request carries the capabilities, and generating them builds a2ui-core's catalogs (about
0.6 s of CPU before `tandem ask` could send its first request). They depend only on a2ui-core,
so they ship with Tandem; another a2ui-core version generates its own. Written by
`write_capabilities_file()`; `tests/a2ui/test_capabilities_file.py` checks it is current.
"""


def generate_capabilities() -> dict[str, Any]:
    """The renderer capabilities a2ui-core generates for the rendering catalog (slow: see `CAPABILITIES_FILE`)."""
    from a2ui.core import CapabilitiesOptions

    return new_processor().get_renderer_capabilities(CapabilitiesOptions(versions=[PROTOCOL_VERSION], include_inline_catalogs=True))


def _a2ui_core_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("a2ui-core")
    except PackageNotFoundError:
        return None


def _shipped_capabilities() -> dict[str, Any] | None:
    """The capabilities in `CAPABILITIES_FILE` if they were generated by the installed a2ui-core."""
    try:
        shipped = json.loads(CAPABILITIES_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(shipped, dict) or shipped.get("a2ui_core") != _a2ui_core_version():
        return None
    capabilities = shipped.get("capabilities")
    return capabilities if isinstance(capabilities, dict) else None


@functools.cache
def _capabilities_json() -> str:
    caps = _shipped_capabilities()
    if caps is None:
        caps = generate_capabilities()
    return json.dumps(caps, separators=(",", ":"), ensure_ascii=False)


def capabilities() -> dict[str, Any]:
    """The renderer capabilities (`a2uiClientCapabilities`), generated by a2ui-core."""
    return json.loads(_capabilities_json())


@functools.cache
def _context_value() -> str:
    version = capabilities()[PROTOCOL_VERSION]
    inline = version.get("inlineCatalogs") or [{}]
    value = {
        "version": PROTOCOL_VERSION,
        "catalogId": BASIC_CATALOG_ID,
        "supportedCatalogIds": [BASIC_CATALOG_ID, *sorted(BASIC_CATALOG_ALIASES - {BASIC_CATALOG_ID}), MINIMAL_CATALOG_ID],
        "components": inline[0].get("components", {}),
    }
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def capabilities_context_entry() -> dict[str, str]:
    """The request context entry naming the catalog and its components (schema JSON as a string)."""
    return {"description": COMPONENT_SCHEMA_DESCRIPTION, "value": _context_value()}


def has_capabilities_entry(context: Iterable[Mapping[str, str]]) -> bool:
    """Whether request context entries already hold the capabilities entry (matched by description)."""
    return any(item.get("description") == COMPONENT_SCHEMA_DESCRIPTION for item in context)


def write_capabilities_file(path: Path = CAPABILITIES_FILE) -> None:
    """Regenerate `CAPABILITIES_FILE` with the installed a2ui-core."""
    shipped = {"a2ui_core": _a2ui_core_version(), "capabilities": generate_capabilities()}
    path.write_text(json.dumps(shipped, indent=1, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8")
