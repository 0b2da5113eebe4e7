"""The config's secrets (provider API keys, header values) are never shown by repr() or str()."""

import pytest
from pydantic import SecretStr

from sessions_tui.engine.config import ConfigError, load_config, parse_config


def test_a_loaded_configs_secrets_never_show_in_repr_or_str(tmp_path):
    path = tmp_path / "config.json5"
    path.write_text(
        '{models: {providers: {corp: {baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-corp-0123456789",'
        ' headers: {Authorization: "Bearer hdr-secret-0123456789"}}}}}'
    )
    loaded = load_config(path)
    for text in (repr(loaded), str(loaded), repr(loaded.config), str(loaded.config)):
        assert "sk-corp-0123456789" not in text and "hdr-secret-0123456789" not in text
    provider = loaded.config.models.providers["corp"]
    assert isinstance(provider.api_key, SecretStr) and provider.api_key.get_secret_value() == "sk-corp-0123456789"
    assert provider.headers is not None
    assert provider.headers["Authorization"].get_secret_value() == "Bearer hdr-secret-0123456789"


def test_a_secret_reference_stays_an_object_and_a_wrong_type_is_still_named_as_before():
    config, _ = parse_config({"models": {"providers": {"x": {"apiKey": {"source": "env", "id": "X_KEY"}}}}})
    assert config.models.providers["x"].api_key == {"source": "env", "id": "X_KEY"}
    with pytest.raises(ConfigError) as raised:
        parse_config({"models": {"providers": {"x": {"apiKey": 3}}}})
    assert str(raised.value) == (
        "<config>: models.providers.x.apiKey.str: expected a string, got number; "
        'models.providers.x.apiKey["dict[str,any]"]: expected an object, got number'
    )
