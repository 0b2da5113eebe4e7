"""Redaction (docs/decisions.md D16): OpenClaw's test vectors, OpenClaw 2026.9.6's kinds, spans that never undo each
other, custom patterns added to the built-in ones, and the JS semantics of custom patterns."""

from __future__ import annotations

import pytest

from sessions_tui.engine.redaction.js_patterns import has_nested_repetition
from sessions_tui.engine.redaction.redact import (
    Redactor,
    default_redactor,
    mask_token,
    redact_lines,
)

PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("OPENAI_API_KEY=sk-1234567890abcdef", "OPENAI_API_KEY=sk-123…cdef"),
        (
            "curl --token abcdef1234567890ghij https://api.test",
            "curl --token abcdef…ghij https://api.test",
        ),
        (
            "gog gmail watch serve --hook-token abcdef1234567890ghij",
            "gog gmail watch serve --hook-token abcdef…ghij",
        ),
        ('{"token":"abcdef1234567890ghij"}', '{"token":"abcdef…ghij"}'),
        ("Authorization: Bearer abcdef1234567890ghij", "Authorization: Bearer abcdef…ghij"),
        ("123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef", "123456…cdef"),
        (
            "GET https://api.telegram.org/bot123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef/getMe HTTP/1.1",
            "GET https://api.telegram.org/bot123456…cdef/getMe HTTP/1.1",
        ),
        ("TOKEN=shortvalue", "TOKEN=***"),
        (PEM, "-----BEGIN PRIVATE KEY-----\n…redacted…\n-----END PRIVATE KEY-----"),
    ],
)
def test_ref_vectors_with_default_patterns(text: str, expected: str) -> None:
    assert Redactor(mode="tools").redact(text) == expected


@pytest.mark.parametrize(
    ("secret", "masked"),
    [
        ("ghp_abcdefghijklmnopqrstuvwxyz", "ghp_ab…wxyz"),
        ("github_pat_abcdefghijklmnopqrstuv", "github…stuv"),
        ("xoxb-1234567890-abcdefghij", "xoxb-1…ghij"),
        ("xapp-1-A0123456789-abcdef", "xapp-1…cdef"),
        ("gsk_abcdefghijklmnopqrst", "gsk_ab…qrst"),
        ("AIzaSyA1234567890abcdefghij", "AIzaSy…ghij"),
        ("pplx-abcdefghijklmnop", "pplx-a…mnop"),
        ("npm_abcdefghijklmnopqr", "npm_ab…opqr"),
    ],
)
def test_token_prefix_patterns_mask_the_token(secret: str, masked: str) -> None:
    assert default_redactor().redact(f"use {secret} now") == f"use {masked} now"


def test_aws_access_key_ids_and_secret_keys_are_masked_as_openclaw_masks_them() -> None:
    redactor = Redactor()
    text = "aws AKIAIOSFODNN7EXAMPLE secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert redactor.redact(text) == "aws AKIAIO…MPLE secret wJalrX…EKEY"
    # not every 40-character run: a lower-case hex digest has no upper case
    digest = "da39a3ee5e6b4b0d3255bfef95601890afd80709"
    assert redactor.redact(f"sha1 {digest}") == f"sha1 {digest}"


def test_plain_patterns_are_case_insensitive() -> None:
    assert default_redactor().redact("openai_api_key=abcdef1234567890ghij") == ("openai_api_key=abcdef…ghij")


def test_a_secret_named_query_parameter_is_masked_up_to_the_next_parameter() -> None:
    # As OpenClaw masks it: the mask stops at `&` or `#`, the URL's other parameters stay readable.
    text = "GET /v1/items?access_token=NnfkFNZWplJdTvwEmJGi1tVTEJFA&page=2 or /x?DB_PASSWORD=abcdefghijklmnopqrst#top"
    assert default_redactor().redact(text) == (
        "GET /v1/items?access_token=NnfkFN…EJFA&page=2 or /x?DB_PASSWORD=abcdef…qrst#top"
    )


def test_pem_block_with_fewer_than_two_lines_becomes_stars() -> None:
    text = "key -----BEGIN PRIVATE KEY-----abc-----END PRIVATE KEY----- end"
    assert default_redactor().redact(text) == "key *** end"


def test_mask_threshold_counts_utf16_units() -> None:
    nine_emoji = "😀" * 9  # 9 code points, 18 UTF-16 units: long enough to keep 6 + 4 units
    assert mask_token(nine_emoji) == "😀😀😀…😀😀"
    assert mask_token("a" * 17) == "***"
    assert mask_token("a" * 18) == "aaaaaa…aaaa"


def test_custom_slash_pattern_with_flags() -> None:
    redactor = Redactor(patterns=["/token=([A-Za-z0-9]+)/i"])
    assert redactor.redact("token=abcdef1234567890ghij") == "token=abcdef…ghij"
    assert redactor.redact("TOKEN=abcdef1234567890ghij") == "TOKEN=abcdef…ghij"


def test_slash_pattern_without_i_is_case_sensitive() -> None:
    redactor = Redactor(patterns=["/pin=([a-z0-9]+)/"])
    assert redactor.redact("PIN=abcdef1234567890ghij") == "PIN=abcdef1234567890ghij"
    assert redactor.redact("pin=abcdef1234567890ghij") == "pin=abcdef…ghij"


def test_unsafe_custom_pattern_is_ignored() -> None:
    redactor = Redactor(patterns=["(a+)+$"])
    assert redactor.redact("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!") == "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"
    assert redactor.dropped_patterns == ("(a+)+$",)
    assert redactor.pattern_problems[0][2].startswith("unsafe")


def test_invalid_and_empty_patterns_are_dropped_and_listed() -> None:
    redactor = Redactor(patterns=["([", "   ", "pin=(\\d+)"])
    assert redactor.dropped_patterns == ("([", "   ")
    assert [why for _, _, why in redactor.pattern_problems] == ["not a valid regular expression", "empty"]
    assert redactor.redact("pin=1234") == "pin=***"


def test_empty_custom_list_uses_defaults() -> None:
    assert Redactor(patterns=[]).redact("TOKEN=shortvalue") == "TOKEN=***"


@pytest.mark.parametrize(
    "pattern",
    [r"(a+)+$", r"(a*)*", r"(\w+\s?)+", r"((a+))+", r"(a{2,})+", r"(a|ab)*", r"(?:x+y)*"],
)
def test_nested_repetition_is_unsafe(pattern: str) -> None:
    assert has_nested_repetition(pattern)


@pytest.mark.parametrize(
    "pattern", [r"\b(sk-[A-Za-z0-9_-]{8,})\b", r"(abc)+", r"[a+]+", r"\(a+\)+", r"(a|b)*", r"(ab)?c+"]
)
def test_safe_patterns_pass_the_check(pattern: str) -> None:
    assert not has_nested_repetition(pattern)


def test_unknown_mode_means_tools() -> None:
    assert Redactor(mode="verbose").redact("TOKEN=shortvalue") == "TOKEN=***"
    assert Redactor(mode=None).mode == "tools"


def test_empty_input_is_returned_unchanged() -> None:
    assert default_redactor().redact("") == ""


def test_80kb_input_with_key_in_the_middle_is_redacted() -> None:
    text = "a " * 20000 + "OPENAI_API_KEY=sk-1234567890abcdef1234 " + "b " * 20000
    result = default_redactor().redact(text)
    assert "sk-1234567890abcdef1234" not in result
    assert "OPENAI_API_KEY=sk-123…1234" in result


def test_dollar_means_end_of_input_as_in_javascript() -> None:
    redactor = Redactor(patterns=["/id=(\\w+)$/"])
    assert redactor.redact("id=abcdef1234567890ghij\n") == "id=abcdef1234567890ghij\n"
    assert redactor.redact("id=abcdef1234567890ghij") == "id=abcdef…ghij"


def test_multiline_flag_anchors_at_line_ends() -> None:
    redactor = Redactor(patterns=["/^pass (\\w+)$/m"])
    assert redactor.redact("one\npass hunter2\nthree") == "one\npass ***\nthree"


def test_word_boundary_is_ascii_like_javascript() -> None:
    assert default_redactor().redact("ésk-1234567890abcdef1234") == "ésk-123…1234"


def test_named_groups_are_translated() -> None:
    redactor = Redactor(patterns=["/id=(?<value>[a-z0-9]{18,})/"])
    assert redactor.dropped_patterns == ()
    assert redactor.redact("id=abcdef1234567890ghij") == "id=abcdef…ghij"


def test_redact_lines_joins_redacts_and_splits() -> None:
    lines = ["-----BEGIN RSA PRIVATE KEY-----", "abc", "def", "-----END RSA PRIVATE KEY-----"]
    assert redact_lines(lines, default_redactor()) == [
        "-----BEGIN RSA PRIVATE KEY-----",
        "…redacted…",
        "-----END RSA PRIVATE KEY-----",
    ]
    assert redact_lines(["TOKEN=shortvalue", "ok"], default_redactor()) == ["TOKEN=***", "ok"]
    assert redact_lines([], default_redactor()) == []


def test_default_redactor_is_cached() -> None:
    assert default_redactor() is default_redactor()
    assert default_redactor().mode == "tools"


def test_json_secret_fields_are_masked_as_the_gateway_masks_them() -> None:
    text = '{"apiKey": "plain-secret-value-1234567890", "token": "tok_live_abcdefghijklmnop"}'
    assert default_redactor().redact(text) == '{"apiKey": "***", "token": "tok_li…mnop"}'


def test_a_json_secret_field_cut_off_mid_value_is_masked() -> None:
    assert default_redactor().redact('{"path": "/x", "apiKey": "abcdef1234567890gh') == '{"path": "/x", "apiKey": "***'


def test_custom_patterns_are_added_to_the_built_in_ones() -> None:
    redactor = Redactor(patterns=["secret-(\\w+)"])
    text = "sk-1234567890abcdef1234 secret-abcdef1234567890ghij"
    assert redactor.redact(text) == "sk-123…1234 secret-abcdef…ghij"


def test_redaction_stays_on_when_every_custom_pattern_is_dropped_or_mode_is_off() -> None:
    for redactor in (Redactor(patterns=["(a*)*"]), Redactor(mode="off")):
        assert redactor.redact("OPENAI_API_KEY=sk-1234567890abcdef") == "OPENAI_API_KEY=sk-123…cdef"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "token: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "token: *** eyJhbG…sR8U",
        ),
        (
            "SSH_KEY=-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAAB3NzaC1yc2E\n"
            "-----END OPENSSH PRIVATE KEY-----",
            "SSH_KEY=-----BEGIN OPENSSH PRIVATE KEY-----\n…redacted…\n-----END OPENSSH PRIVATE KEY-----",
        ),
        (
            "key:-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nqwertyuiop",
            "key:-----BEGIN RSA PRIVATE KEY-----\n…redacted…",
        ),
    ],
)
def test_patterns_never_undo_each_other(text: str, expected: str) -> None:
    assert default_redactor().redact(text) == expected


def test_a_private_key_without_its_end_line_hides_everything_after_it() -> None:
    text = "here: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg\nmore key material\nand the rest"
    assert default_redactor().redact(text) == "here: -----BEGIN EC PRIVATE KEY-----\n…redacted…"


def test_what_comes_before_a_key_that_hides_the_rest_is_redacted_as_in_any_text() -> None:
    """The rules look only at the text before a BEGIN with no END (and a margin past it): what is
    before it is masked as ever, a span reaching into the key is clipped to before it, and however
    much follows (secrets, more BEGIN lines) it stays hidden."""
    begin = "-----BEGIN RSA PRIVATE KEY-----\n"
    tail = begin * 5000 + "token=sk-1234567890abcdef1234 " + begin * 5000
    text = "key sk-1234567890abcdef1234 then " + begin + tail
    shown = default_redactor().redact(text)
    assert shown == "key sk-123…1234 then -----BEGIN RSA PRIVATE KEY-----\n…redacted…"
    redactor = Redactor(known_secrets=["my-own-model-api-key-value"])
    assert redactor.redact("echo my-own-model-api-key-value" + begin + tail) == (
        "echo my-own…alue-----BEGIN RSA PRIVATE KEY-----\n…redacted…"
    )
    crossing = "x" * 70_000  # longer than the margin the rules look past the key's start
    assert default_redactor().redact("sk-" + crossing + begin + "more") == default_redactor().redact(
        "sk-" + crossing + begin + "more" + begin * 100_000
    )


def test_the_configs_own_secret_values_are_masked_wherever_they_appear() -> None:
    redactor = Redactor(known_secrets=["my-own-model-api-key-value", "short"])
    assert redactor.redact("echo my-own-model-api-key-value now") == "echo my-own…alue now"
    assert redactor.redact("short") == "short"  # too short to be told from ordinary words


def test_secret_field_names_hide_their_values_in_agent_data() -> None:
    args = {
        "path": "/tmp/x",
        "apiKey": "abc",
        "DB_PASSWORD": 12345,
        "nested": [{"client_secret": "s3"}],
        "enabled": True,
        "token": "$API_TOKEN",
        "note": "uses sk-1234567890abcdef1234",
    }
    assert default_redactor().redact_fields(args) == {
        "path": "/tmp/x",
        "apiKey": "***",
        "DB_PASSWORD": "***",
        "nested": [{"client_secret": "***"}],
        "enabled": True,
        "token": "$API_TOKEN",
        "note": "uses sk-123…1234",
    }


@pytest.mark.parametrize(
    "text",
    [
        "bob: OPENAI_API_KEY=sk-demo1234567890abcdefXYZ by mistake",
        '{"apiKey": "plain-secret-value-1234567890", "token": "tok_live_abcdefghijklmnop"}',
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
        "postgres://admin:s3cr3tP4ssw0rd!@db.example.com:5432/app password=hunter2correcthorse",
    ],
)
def test_redacting_twice_changes_nothing_more(text: str) -> None:
    once = default_redactor().redact(text)
    assert once != text
    assert default_redactor().redact(once) == once


def test_a_remembered_redaction_is_the_same_and_the_memory_is_bounded(monkeypatch):
    from sessions_tui.engine.redaction import redact as redact_module

    monkeypatch.setattr(redact_module, "MEMO_CHARS", 1000)
    redactor = redact_module.Redactor()
    secret = "token sk-1234567890abcdef1234 here"
    first = redactor.redact(secret)
    assert "sk-1234567890abcdef1234" not in first
    assert redactor.redact(secret) == first  # from memory
    for i in range(200):
        redactor.redact(f"plain text number {i:04d}")
    assert redactor._memo_chars <= 1000
    assert redactor.redact(secret) == first
    long_text = "x" * (redact_module.MEMO_MAX_LENGTH + 1)
    assert redactor.redact(long_text) == long_text and long_text not in redactor._memo
