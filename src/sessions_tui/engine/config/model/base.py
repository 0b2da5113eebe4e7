"""What every config model shares: the strict base class and the field types used in several sections.

The file uses OpenClaw's key names (camelCase); Python attributes are snake_case with the
camelCase spelling as alias, and either spelling is accepted on input. Keys this project does not
use are ignored, so a real `openclaw.json` loads. Types are strict: a boolean never passes as a
number, a string never as a number or a boolean; numbers of integer keys may be floats and are
floored, as OpenClaw floors them.
"""

import math
from collections.abc import Callable
from typing import Annotated, Any, TypeVar, cast

from pydantic import BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from sessions_tui.engine.lazy_model import LazyModel

__all__ = ["ConfigModel", "FlooredInt", "ModelRef", "ModelRefField", "defaults_of"]


def _floor_number(value: Any) -> Any:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise PydanticCustomError("finite_number", "expected a finite number")
        return math.floor(value)
    return value


#: An integer that also accepts (and floors) a float; never a boolean or a string.
FlooredInt = Annotated[int, BeforeValidator(_floor_number)]


class ConfigModel(LazyModel):
    """The base of every config section: strict types, camelCase aliases, unknown keys ignored."""

    model_config = ConfigDict(
        strict=True,
        populate_by_name=True,
        extra="ignore",
        validate_default=False,
    )


_Section = TypeVar("_Section", bound=ConfigModel)


def defaults_of(model: type[_Section]) -> _Section:
    """`model()` without running a validator: with no input there is nothing to check (defaults are
    not validated), and building the validators of every section is most of a `tool` call's
    start-up when there is no config file. Each section's defaults are built the same way.

    Every default is given to `model_construct` here: asked for one made by a factory, pydantic
    reads the factory's signature (does it take the data validated so far?), and the signature of
    `list` or `dict` is parsed from text, which loads Python's tokenizer. The config's factories
    take nothing."""
    values: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        factory = info.default_factory
        if isinstance(factory, type) and issubclass(factory, ConfigModel):
            values[name] = defaults_of(factory)
        elif factory is not None:
            values[name] = cast(Callable[[], Any], factory)()
        elif not info.is_required():
            values[name] = info.get_default()  # a copy, as pydantic makes it
    return cast(_Section, model.model_construct(_fields_set=set(), **values))  # the plugin types it as the base


class ModelRef(ConfigModel):
    """A model reference: `"provider/model"` or `{primary, fallbacks}` in the file."""

    primary: str | None = Field(
        default=None, description='The model to use, as "provider/model"; none: the caller\'s default.'
    )
    fallbacks: list[str] = Field(
        default_factory=list, description="Models to try after the primary one (read, not used yet); default []."
    )


def _coerce_model_ref(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        return {"primary": text} if text else None
    if value is None or isinstance(value, (dict, ModelRef)):
        return value
    raise PydanticCustomError("model_ref_type", "expected a string or an object")


#: A model reference field: a string (`"provider/model"`; empty: none) or a `{primary, fallbacks}` object.
ModelRefField = Annotated[ModelRef | None, BeforeValidator(_coerce_model_ref)]
