"""A form rendered from a JSON schema, validated with jsonschema before it is submitted."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, Select, Static

from tandem.widgets.marked_checkbox import MarkedCheckbox
from tandem.widgets.sanitize import agent_text, safe_id, sanitize
from tandem.core.agent_json import dumps_agent_json, loads_agent_json

__all__ = ["SchemaForm"]

_ROOT = "\x00root"
"""Field key used when the schema is not an object (the whole payload is one field)."""
_RAW_JSON = "\x00raw-json"
"""Field type of the one field of a form whose schema cannot be used: any JSON."""


class SchemaForm(Widget):
    """Fields for a JSON schema: string and number inputs, checkboxes, selects for enums.

    Owns the field widgets; reads the schema once at construction. Object schemas get one field
    per property (required ones marked `*`); other schemas get a single field (`{"type": "string"}`:
    one text field, whose Enter submits the typed string). Nested objects and arrays are edited
    as JSON text. On submit the values are converted, checked with jsonschema and either shown
    as errors (class `-invalid`) or posted as `SchemaForm.Submitted`. With a `decline_label`, a
    second button beside the submit posts `SchemaForm.Declined`.
    Every label, description and enum value from the schema is sanitised and shown as data.
    UI thread only.
    """

    DEFAULT_CSS: ClassVar[str] = """
    SchemaForm {
        height: auto;
        & .schema-form--field { height: auto; margin: 0 0 1 0; }
        & .schema-form--label { text-style: bold; }
        & .schema-form--required { color: $text-error; }
        & .schema-form--description { color: $text-muted; }
        & .schema-form--field-error { color: $text-error; display: none; }
        & .schema-form--field.-invalid .schema-form--field-error { display: block; }
        & .schema-form--field.-invalid Input { border: tall $error; }
        & .schema-form--errors { color: $text-error; display: none; }
        &.-invalid .schema-form--errors { display: block; }
        & .schema-form--submit { margin: 0; }
        & .schema-form--problem { color: $text-error; margin: 0 0 1 0; }
        & .schema-form--buttons { height: auto; }
        & .schema-form--buttons > Button { margin: 0 1 0 0; }
    }
    """

    class Submitted(Message):
        """A valid payload was submitted; handled as `on_schema_form_submitted`."""

        def __init__(self, form: SchemaForm, payload: Any) -> None:
            super().__init__()
            self.form = form
            """The form that posted it."""
            self.payload = payload
            """The value, valid against the schema."""

        @property
        def control(self) -> SchemaForm:
            """The form (lets `@on(SchemaForm.Submitted, "#id")` match)."""
            return self.form

    class Declined(Message):
        """The decline button was pressed; handled as `on_schema_form_declined`."""

        def __init__(self, form: SchemaForm) -> None:
            super().__init__()
            self.form = form
            """The form that posted it."""

        @property
        def control(self) -> SchemaForm:
            """The form (lets `@on(SchemaForm.Declined, "#id")` match)."""
            return self.form

    def __init__(
        self,
        schema: dict[str, Any] | None,
        *,
        submit_label: str = "Submit",
        decline_label: str | None = None,
        placeholder: str = "",
        disabled: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """
        Args:
            schema: The JSON schema of the answer (None or {} accepts any object: no fields).
            submit_label: The submit button's label (ours, not the agent's).
            decline_label: The decline button's label (ours); None shows no decline button.
            placeholder: Shown in an empty text field of a single-field (non-object) form.
        """
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        from tandem.core.agent_schema import schema_problem

        self.schema: dict[str, Any] = dict(schema) if isinstance(schema, dict) else {}
        self.submit_label = submit_label
        self.decline_label = decline_label
        self.placeholder = placeholder
        self.problem: str | None = schema_problem(schema)
        """Why the agent's schema cannot be used (checked before any use): the form is then one
        raw JSON field, checked only as JSON."""
        self._fields: dict[str, dict[str, Any]] = (
            {_ROOT: {"type": _RAW_JSON, "title": "answer (raw JSON)"}} if self.problem else self._field_specs()
        )

    @property
    def composing(self) -> bool:
        """Whether some field's input is not mounted yet (nested fields mount over a few frames)."""
        return len(self.query(".schema-form--input")) < len(self._fields)

    def compose(self) -> ComposeResult:
        if self.problem:
            yield Static(Content("✗ The agent's form cannot be used: ") + agent_text(self.problem)
                         + Content("\nAnswer with raw JSON, or decline."), classes="schema-form--problem")
        for key, spec in self._fields.items():
            with Vertical(classes="schema-form--field", id=self._field_id(key)):
                yield self._label(key, spec)
                description = spec.get("description")
                if isinstance(description, str) and description:
                    yield Static(agent_text(description), classes="schema-form--description")
                yield self._input(key, spec)
                yield Static(classes="schema-form--field-error")
        yield Static(classes="schema-form--errors")
        with Horizontal(classes="schema-form--buttons"):
            yield Button(Content(self.submit_label), variant="primary", compact=True, classes="schema-form--submit")
            if self.decline_label is not None:
                yield Button(Content(self.decline_label), variant="error", compact=True, classes="schema-form--decline")

    @on(Button.Pressed, ".schema-form--submit")
    def _submit_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.submit()

    @on(Button.Pressed, ".schema-form--decline")
    def _decline_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Declined(self))

    @on(Input.Submitted)
    def _input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def submit(self) -> bool:
        """Validate the fields; post `Submitted` if valid, else show the errors. Returns validity."""
        payload, errors = self.collect()
        if not errors:
            errors = self.validate(payload)
        self._show_errors(errors)
        if errors:
            return False
        self.post_message(self.Submitted(self, payload))
        return True

    def collect(self) -> tuple[Any, dict[str, str]]:
        """The payload from the fields, and conversion errors by field key."""
        values: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for key, spec in self._fields.items():
            widget = self.query_one(f"#{self._field_id(key)} .schema-form--input")
            try:
                present, value = self._read(widget, spec)
            except ValueError as exc:
                errors[key] = str(exc)
                continue
            if present:
                values[key] = value
        if self.problem and _ROOT not in values and not errors:
            errors[_ROOT] = "write the answer as JSON"
        if _ROOT in self._fields:
            return values.get(_ROOT), errors
        return values, errors

    def validate(self, payload: Any) -> dict[str, str]:
        """Schema violations of `payload`, by field key (`""` for the form as a whole).

        The agent's patterns run under a time bound (`core.agent_schema`): a catastrophic one
        costs a fraction of a second on the UI thread and is reported, never a freeze.
        """
        from tandem.core.agent_schema import schema_errors

        if self.problem or not self.schema:
            return {}
        found, stopped = schema_errors(self.schema, payload)
        if stopped is not None:
            return {"": sanitize(stopped)}
        errors: dict[str, str] = {}
        if found and payload is None and _ROOT in self._fields:
            return {_ROOT: "required"}  # an empty single field: not "None is not of type 'string'"
        for error in found:
            path = list(error.absolute_path)
            key = _ROOT if _ROOT in self._fields else (str(path[0]) if path else "")
            if error.validator == "required" and not path and isinstance(error.instance, dict):
                missing = [name for name in self._required() if name not in error.instance]
                for name in missing:
                    errors.setdefault(name, "required")
                continue
            errors.setdefault(key if key in self._fields else "", sanitize(error.message))
        return errors

    def _show_errors(self, errors: dict[str, str]) -> None:
        for key in self._fields:
            field = self.query_one(f"#{self._field_id(key)}")
            message = errors.get(key)
            field.set_class(message is not None, "-invalid")
            field.query_one(".schema-form--field-error", Static).update(Content(f"✗ {message}" if message else ""))
        self.set_class(bool(errors), "-invalid")
        summary = [f"✗ {message}" for key, message in errors.items() if key not in self._fields]
        if errors and not summary:
            summary = [f"✗ {len(errors)} field(s) need attention"]
        self.query_one(".schema-form--errors", Static).update(Content("\n".join(summary)))

    def _field_specs(self) -> dict[str, dict[str, Any]]:
        schema = self.schema
        properties = schema.get("properties")
        if schema.get("type", "object") == "object" and isinstance(properties, dict):
            return {str(key): spec if isinstance(spec, dict) else {} for key, spec in properties.items()}
        if schema and schema.get("type") != "object":
            return {_ROOT: schema}
        return {}

    def _required(self) -> list[str]:
        required = self.schema.get("required")
        return [str(name) for name in required] if isinstance(required, list) else []

    def _field_id(self, key: str) -> str:
        return "schema-field-" + safe_id(key)

    def _label(self, key: str, spec: dict[str, Any]) -> Static:
        title = spec.get("title")
        text = agent_text(title if isinstance(title, str) and title else ("answer" if key == _ROOT else key))
        if key in self._required() or (key == _ROOT):
            text = text + Content(" *").stylize("bold")
        return Static(text, classes="schema-form--label")

    def _input(self, key: str, spec: dict[str, Any]) -> Widget:
        kind = spec.get("type")
        default = spec.get("default")
        enum = spec.get("enum")
        if isinstance(enum, list) and enum:
            options = [(agent_text(_display(value)), index) for index, value in enumerate(enum)]
            initial = enum.index(default) if default in enum else Select.NULL
            return Select(options, value=initial, allow_blank=key not in self._required(), classes="schema-form--input")
        if kind == "boolean":
            return MarkedCheckbox(Content("yes"), value=bool(default), classes="schema-form--input")
        if kind in ("integer", "number"):
            return Input(
                "" if default is None else str(default),
                type="integer" if kind == "integer" else "number",
                classes="schema-form--input",
            )
        if kind in ("object", "array", _RAW_JSON):
            return Input(
                "" if default is None else sanitize(dumps_agent_json(default)),
                placeholder="JSON",
                classes="schema-form--input",
            )
        return Input(
            "" if default is None else sanitize(str(default)),
            placeholder=self.placeholder if key == _ROOT else "",
            classes="schema-form--input",
        )

    def _read(self, widget: Widget, spec: dict[str, Any]) -> tuple[bool, Any]:
        """(present, value) from a field widget. Raises ValueError for unconvertible text."""
        kind = spec.get("type")
        if isinstance(widget, Select):
            if widget.value is Select.NULL or widget.value is None:
                return False, None
            return True, spec["enum"][widget.value]
        if isinstance(widget, MarkedCheckbox):
            return True, widget.value
        assert isinstance(widget, Input)
        text = widget.value
        if text.strip() == "":
            return False, None
        if kind == "integer":
            try:
                return True, int(text)
            except ValueError:
                raise ValueError("must be a whole number") from None
        if kind == "number":
            try:
                number = float(text)
            except ValueError:
                raise ValueError("must be a number") from None
            return True, int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
        if kind in ("object", "array", _RAW_JSON):
            try:
                return True, loads_agent_json(text)
            except ValueError:
                raise ValueError("must be JSON") from None
        return True, text


def _display(value: Any) -> str:
    return value if isinstance(value, str) else dumps_agent_json(value)
