"""A tool's parameters as offered to models, generated from its argument model.

Each tool declares its arguments once, as a pydantic model (fields aliased to the wire names,
described for the model). The OpenAI function schema is that model's JSON schema with the
adjustments the wire needs, so what a model is told and what the tool reads cannot drift apart:

- integers are JSON Schema `number`: OpenClaw's tools take any finite number and floor it;
- an optional field is just its type (no `anyOf` with `null`): absent is how a caller omits it;
- no titles and no defaults: the descriptions say what a default is, in words;
- no description of the object itself: the tool's description is the function's, and a model's
  docstring is written for the code's readers.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema


class WireJsonSchema(GenerateJsonSchema):
    """pydantic's JSON schema generator with the wire's adjustments (see the module docstring)."""

    def int_schema(self, schema: core_schema.IntSchema) -> JsonSchemaValue:
        generated = super().int_schema(schema)
        generated["type"] = "number"
        return generated

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def generate(self, schema: core_schema.CoreSchema, mode: Any = "validation") -> JsonSchemaValue:
        generated = super().generate(schema, mode)
        generated.pop("title", None)
        generated.pop("description", None)
        return generated


def wire_parameters(model: type[BaseModel]) -> dict[str, Any]:
    """The `parameters` object of a tool's OpenAI function, from its argument model."""
    return model.model_json_schema(by_alias=True, schema_generator=WireJsonSchema, mode="validation")
