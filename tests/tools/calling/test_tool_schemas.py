"""One declaration per tool's parameters: the schema a model is offered is generated from the
argument model the tool parses with, so the two cannot drift apart."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import run_tool
from sessions_tui.tools.calling.base import ToolArgs, ToolInputError
from sessions_tui.tools.calling.registry import TOOLS
from sessions_tui.tools.calling.schema import wire_parameters

# agents_list takes no arguments: it ignores whatever it is given, so it parses nothing.
PARSING_TOOLS = sorted(name for name in TOOLS if name != "agents_list")
# How a tool words a missing required parameter when not "<key> required" (its gateway's recorded answer).
MISSING_WORDS = {("sessions_search", "query"): "query must not be empty"}


def _sample(prop: dict[str, Any], default: Any) -> Any:
    """A value of the property's type, other than the field's default where the schema allows one."""
    if "enum" in prop:
        return next((v for v in prop["enum"] if v != default), prop["enum"][0])
    return {"string": "cron", "number": 3, "boolean": True, "array": ["cron"]}[prop["type"]]


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_offered_schema_is_generated_from_the_argument_model(name):
    spec = TOOLS[name]
    assert issubclass(spec.arguments, ToolArgs)
    assert spec.parameters == wire_parameters(spec.arguments)
    assert spec.openai_function()["function"]["parameters"] == wire_parameters(spec.arguments)
    assert spec.parameters["type"] == "object"
    assert set(spec.parameters) <= {"type", "properties", "required"}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_offered_property_is_a_field_the_model_reads(name):
    model = TOOLS[name].arguments
    schema = TOOLS[name].parameters
    required = schema.get("required", [])
    by_alias = {(field.alias or field_name): field_name for field_name, field in model.model_fields.items()}
    minimal = {key: _sample(schema["properties"][key], None) for key in required}
    for wire_name, prop in schema["properties"].items():
        field_name = by_alias[wire_name]
        field = model.model_fields[field_name]
        assert prop["description"] == field.description
        assert (wire_name in required) == field.is_required()
        value = _sample(prop, None if field.is_required() else field.default)
        parsed = getattr(model.model_validate({**minimal, wire_name: value}), field_name)
        assert (list(parsed) if isinstance(parsed, tuple) else parsed) == value, wire_name


@pytest.mark.parametrize("name", PARSING_TOOLS)
def test_a_required_parameter_is_refused_in_the_tools_words(engine, name):
    for key in TOOLS[name].parameters.get("required", []):
        words = MISSING_WORDS.get((name, key), f"{key} required")
        with pytest.raises(ToolInputError, match=f"^{words}$"):
            TOOLS[name].arguments.model_validate({})
        with pytest.raises(ToolInputError, match=f"^{words}$"):
            run_tool(engine, name, {})


@pytest.mark.parametrize("name", PARSING_TOOLS)
def test_the_tool_parses_its_arguments_with_the_declared_model(engine, monkeypatch, name):
    class Parsed(Exception):
        pass

    def read(cls: type[ToolArgs], params: dict[str, Any]) -> dict[str, Any]:
        raise Parsed(cls.__name__)

    monkeypatch.setattr(TOOLS[name].arguments, "read", classmethod(read))
    with pytest.raises(Parsed, match=TOOLS[name].arguments.__name__):
        run_tool(engine, name, {"sessionKey": "main", "task": "t", "message": "m"})
