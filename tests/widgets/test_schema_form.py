"""SchemaForm: fields from a schema, conversion and jsonschema validation, the submitted payload."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Checkbox, Input, Select, Static

from tandem.widgets import SchemaForm

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your [b]name[/b]", "description": "as on the badge", "minLength": 2},
        "age": {"type": "integer", "minimum": 0},
        "ratio": {"type": "number"},
        "subscribe": {"type": "boolean", "default": True},
        "color": {"enum": ["red", "green", "[blue]"]},
    },
    "required": ["name", "age"],
}


class _Host(App[None]):
    def __init__(self, form: SchemaForm) -> None:
        super().__init__()
        self.form = form
        self.payloads: list[Any] = []

    def compose(self) -> ComposeResult:
        yield self.form

    def on_schema_form_submitted(self, message: SchemaForm.Submitted) -> None:
        self.payloads.append(message.payload)


def _field(form: SchemaForm, key: str) -> Any:
    return form.query_one(f"#schema-field-t-{key} .schema-form--input")


async def test_fields_and_required_markers() -> None:
    form = SchemaForm(SCHEMA)
    async with _Host(form).run_test():
        labels = [str(label.render()) for label in form.query(".schema-form--label").results(Static)]
        assert labels == ["Your [b]name[/b] *", "age *", "ratio", "subscribe", "color"]
        assert isinstance(_field(form, "subscribe"), Checkbox) and _field(form, "subscribe").value is True
        assert isinstance(_field(form, "color"), Select)
        assert _field(form, "age").type == "integer"


async def test_missing_required_fields_are_shown_and_nothing_is_posted() -> None:
    form = SchemaForm(SCHEMA)
    app = _Host(form)
    async with app.run_test(size=(80, 60)) as pilot:
        await pilot.click(".schema-form--submit")
        assert app.payloads == []
        assert form.has_class("-invalid")
        invalid = [field.id for field in form.query(".schema-form--field.-invalid")]
        assert invalid == ["schema-field-t-name", "schema-field-t-age"]


async def test_schema_violations_are_reported_per_field() -> None:
    form = SchemaForm(SCHEMA)
    app = _Host(form)
    async with app.run_test(size=(80, 60)) as pilot:
        _field(form, "name").value = "x"
        _field(form, "age").value = "-3"
        await pilot.click(".schema-form--submit")
        assert app.payloads == []
        name_error = str(form.query_one("#schema-field-t-name .schema-form--field-error", Static).render())
        age_error = str(form.query_one("#schema-field-t-age .schema-form--field-error", Static).render())
        assert "too short" in name_error
        assert "less than the minimum" in age_error


async def test_valid_submit_posts_typed_payload() -> None:
    form = SchemaForm(SCHEMA)
    app = _Host(form)
    async with app.run_test(size=(80, 60)) as pilot:
        _field(form, "name").value = "Ada"
        _field(form, "age").value = "36"
        _field(form, "ratio").value = "0.5"
        _field(form, "color").value = 2
        _field(form, "subscribe").value = False
        await pilot.click(".schema-form--submit")
        assert app.payloads == [{"name": "Ada", "age": 36, "ratio": 0.5, "subscribe": False, "color": "[blue]"}]
        assert not form.has_class("-invalid")


async def test_enter_in_an_input_submits() -> None:
    form = SchemaForm({"type": "object", "properties": {"answer": {"type": "string"}}})
    app = _Host(form)
    async with app.run_test(size=(80, 60)) as pilot:
        _field(form, "answer").focus()
        await pilot.press(*"yes", "enter")
        assert app.payloads == [{"answer": "yes"}]


async def test_non_object_schema_is_one_field() -> None:
    form = SchemaForm({"type": "integer", "maximum": 10})
    app = _Host(form)
    async with app.run_test(size=(80, 60)) as pilot:
        field = form.query_one(".schema-form--input", Input)
        field.value = "11"
        assert not form.submit()
        field.value = "7"
        await pilot.pause()
        assert form.submit()
        await pilot.pause()
        assert app.payloads == [7]


async def test_a_string_schema_is_one_answer_field_and_empty_is_required() -> None:
    form = SchemaForm({"type": "string"}, placeholder="type here")
    app = _Host(form)
    async with app.run_test() as pilot:
        assert [str(label.render()) for label in form.query(".schema-form--label").results(Static)] == ["answer *"]
        field = form.query_one(Input)
        assert field.placeholder == "type here"
        assert not form.query(".schema-form--decline")  # no decline unless asked for
        field.focus()
        await pilot.press("enter")
        assert app.payloads == []
        assert "✗ required" in str(form.query_one(".schema-form--field-error", Static).render())
        await pilot.press(*"ok", "enter")
        assert app.payloads == ["ok"]


async def test_the_decline_button_posts_declined() -> None:
    declined: list[SchemaForm] = []

    class Host(_Host):
        def on_schema_form_declined(self, message: SchemaForm.Declined) -> None:
            declined.append(message.form)

    form = SchemaForm({"type": "string"}, decline_label="Decline")
    app = Host(form)
    async with app.run_test() as pilot:
        await pilot.click(".schema-form--decline")
        assert declined == [form] and app.payloads == []


async def test_a_malformed_agent_schema_is_reported_not_raised() -> None:
    for schema in ({"type": "string", "minLength": "x"}, {"type": "string", "pattern": "("}):
        form = SchemaForm(schema)
        app = _Host(form)
        async with app.run_test() as pilot:
            form.query_one(Input).focus()
            await pilot.press(*"abc", "enter")
            # Checked before use: the form says why it cannot be used and takes raw JSON only.
            assert app.payloads == []
            assert form.problem is not None
            assert "cannot be used" in str(form.query_one(".schema-form--problem", Static).render())
