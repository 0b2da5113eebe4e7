"""REFERENCE §7 `redactSensitiveText`: REF test vectors plus the Python port's JS semantics."""

from __future__ import annotations

import pytest

from sessions_tui.engine.redact import (
    DEFAULT_REDACT_PATTERNS,
    REDACT_CHUNK_SIZE,
    Redactor,
    default_redactor,
    has_nested_repetition,
    mask_token,
    redact_lines,
)

PEM = (
    "-----BEGIN PRIVATE KEY-----\n"
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
    "BKcwggSjAgEAAoIBAQC7\n"
    "-----END PRIVATE KEY-----"
)


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
            "GET https://api.telegram.org/bot123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef/getMe"
            " HTTP/1.1",
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


def test_default_patterns_are_the_17_ref_sources_then_aws_and_all_compile() -> None:
    redactor = Redactor()
    assert len(DEFAULT_REDACT_PATTERNS) == 19  # REF's 17, then AWS key ids and secrets (SPEC D16)
    assert DEFAULT_REDACT_PATTERNS[6] == r"\b(sk-[A-Za-z0-9_-]{8,})\b"
    assert DEFAULT_REDACT_PATTERNS[15] == r"\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b"
    assert len(redactor.patterns) == 19
    assert redactor.dropped_patterns == ()


def test_aws_access_key_ids_and_secret_keys_are_masked_as_openclaw_masks_them() -> None:
    redactor = Redactor()
    text = "aws AKIAIOSFODNN7EXAMPLE secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert redactor.redact(text) == "aws AKIAIO…MPLE secret wJalrX…EKEY"
    # not every 40-character run: a lower-case hex digest has no upper case
    digest = "da39a3ee5e6b4b0d3255bfef95601890afd80709"
    assert redactor.redact(f"sha1 {digest}") == f"sha1 {digest}"


def test_plain_patterns_are_case_insensitive() -> None:
    assert default_redactor().redact("openai_api_key=abcdef1234567890ghij") == (
        "openai_api_key=abcdef…ghij"
    )


def test_json_api_key_field_is_masked() -> None:
    assert default_redactor().redact('{"apiKey": "abcdef1234567890ghij"}') == (
        '{"apiKey": "abcdef…ghij"}'
    )


def test_pem_block_with_fewer_than_two_lines_becomes_stars() -> None:
    text = "key -----BEGIN PRIVATE KEY-----abc-----END PRIVATE KEY----- end"
    assert default_redactor().redact(text) == "key *** end"


def test_token_replaced_at_its_first_occurrence_inside_the_match() -> None:
    # REF replaces the first occurrence of the token in the match, even inside the key name.
    assert default_redactor().redact("PASSWORD=PASSWORD") == "***=PASSWORD"


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
    redactor = Redactor(patterns=["/token=([a-z0-9]+)/"])
    assert redactor.redact("TOKEN=abcdef1234567890ghij") == "TOKEN=abcdef1234567890ghij"
    assert redactor.redact("token=abcdef1234567890ghij") == "token=abcdef…ghij"


def test_custom_patterns_replace_the_defaults() -> None:
    redactor = Redactor(patterns=["secret-(\\w+)"])
    text = "sk-1234567890abcdef1234 secret-abcdef1234567890ghij"
    assert redactor.redact(text) == "sk-1234567890abcdef1234 secret-abcdef…ghij"


def test_unsafe_custom_pattern_is_ignored() -> None:
    redactor = Redactor(patterns=["(a+)+$"])
    assert redactor.redact("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!") == "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"
    assert redactor.patterns == ()
    assert redactor.dropped_patterns == ("(a+)+$",)


def test_invalid_and_empty_patterns_are_dropped_and_listed() -> None:
    redactor = Redactor(patterns=["([", "   ", "pin=(\\d+)"])
    assert redactor.dropped_patterns == ("([", "   ")
    assert redactor.redact("pin=1234") == "pin=***"


def test_all_custom_patterns_dropped_means_no_redaction() -> None:
    redactor = Redactor(patterns=["(a*)*"])
    assert redactor.redact("OPENAI_API_KEY=sk-1234567890abcdef") == (
        "OPENAI_API_KEY=sk-1234567890abcdef"
    )


def test_empty_custom_list_uses_defaults() -> None:
    assert Redactor(patterns=[]).redact("TOKEN=shortvalue") == "TOKEN=***"


@pytest.mark.parametrize(
    "pattern",
    [r"(a+)+$", r"(a*)*", r"(\w+\s?)+", r"((a+))+", r"(a{2,})+", r"(a|ab)*", r"(?:x+y)*"],
)
def test_nested_repetition_is_unsafe(pattern: str) -> None:
    assert has_nested_repetition(pattern)


@pytest.mark.parametrize(
    "pattern", [*DEFAULT_REDACT_PATTERNS, r"(abc)+", r"[a+]+", r"\(a+\)+", r"(a|b)*", r"(ab)?c+"]
)
def test_safe_patterns_pass_the_check(pattern: str) -> None:
    assert not has_nested_repetition(pattern)


def test_mode_off_leaves_text_unchanged() -> None:
    text = "OPENAI_API_KEY=sk-1234567890abcdef"
    assert Redactor(mode="off").redact(text) == text


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


def test_secret_straddling_a_chunk_boundary_survives_like_ref() -> None:
    key = "sk-1234567890abcdef1234"  # starts 5 units before the first 16384-unit cut
    text = "x" * (REDACT_CHUNK_SIZE - 6) + " " + key + " " + "y" * 20000
    assert default_redactor().redact(text) == text


def test_chunking_keeps_astral_characters_intact() -> None:
    text = "😀" * 20000 + " sk-1234567890abcdef1234 " + "😀" * 20000
    result = default_redactor().redact(text)
    assert result == "😀" * 20000 + " sk-123…1234 " + "😀" * 20000


def test_dollar_means_end_of_input_as_in_javascript() -> None:
    redactor = Redactor(patterns=["/key=(\\w+)$/"])
    assert redactor.redact("key=abcdef1234567890ghij\n") == "key=abcdef1234567890ghij\n"
    assert redactor.redact("key=abcdef1234567890ghij") == "key=abcdef…ghij"


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
