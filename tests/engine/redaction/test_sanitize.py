"""History sanitising and caps as OpenClaw's sessions_history does them, its test cases, and
docs/decisions.md D2, D3, D12."""

from __future__ import annotations

import copy
import json

import pytest

from sessions_tui.engine.redaction import sanitize
from sessions_tui.engine.redaction.assistant_text import extract_assistant_text, sanitize_text_content
from sessions_tui.engine.redaction.redact import Redactor, default_redactor, truncate_utf16_safe, utf16_len
from sessions_tui.engine.redaction.sanitize import (
    HISTORY_MAX_BYTES,
    HISTORY_TEXT_MAX_CHARS,
    OMITTED_PLACEHOLDER,
    TRUNCATION_MARKER,
    cap_history,
    json_utf8_bytes,
    sanitize_history,
    sanitize_history_message,
    strip_tool_messages,
    truncate_history_text,
)

PLACEHOLDER_TEXT = "[sessions_history omitted: message too large]"


def test_constants() -> None:
    assert HISTORY_TEXT_MAX_CHARS == 4000
    assert HISTORY_MAX_BYTES == 81920
    assert TRUNCATION_MARKER == "\n\u2026(truncated)\u2026"
    assert OMITTED_PLACEHOLDER == {"role": "assistant", "content": PLACEHOLDER_TEXT}


# --- UTF-16 helpers


def test_utf16_len_counts_astral_characters_twice() -> None:
    assert utf16_len("a😀") == 3
    assert utf16_len("é") == 1
    assert utf16_len("\ud800") == 1


def test_truncate_utf16_safe_drops_a_pair_that_would_straddle_the_cut() -> None:
    text = "a" * 3999 + "😀" + "b"
    assert truncate_utf16_safe(text, 4000) == "a" * 3999
    assert truncate_utf16_safe(text, 4001) == "a" * 3999 + "😀"


def test_truncate_utf16_safe_keeps_lone_surrogate_code_points_together() -> None:
    text = "ab\ud83d\ude00cd"  # a pair spelled as two lone surrogate code points
    assert truncate_utf16_safe(text, 3) == "ab"
    assert truncate_utf16_safe(text, 4) == "ab\ud83d\ude00"


def test_truncate_utf16_safe_short_input_and_zero_limit() -> None:
    assert truncate_utf16_safe("hello", 5) == "hello"
    assert truncate_utf16_safe("hello", 0) == ""


# --- truncate_history_text


def test_text_at_the_limit_is_untouched() -> None:
    assert truncate_history_text("x" * 4000, default_redactor()) == ("x" * 4000, False, False)


def test_text_over_the_limit_is_cut_and_marked() -> None:
    text, truncated, redacted = truncate_history_text("x" * 4001, default_redactor())
    assert text == "x" * 4000 + TRUNCATION_MARKER
    assert len(text) == 4014  # marker is 14 units; OpenClaw's test only asserts <= 4015
    assert (truncated, redacted) == (True, False)


def test_surrogate_pair_at_the_4000_boundary_is_not_split() -> None:
    text, truncated, _ = truncate_history_text("a" * 3999 + "😀" * 3, default_redactor())
    assert truncated
    assert text == "a" * 3999 + TRUNCATION_MARKER


def test_redaction_happens_before_the_length_check() -> None:
    raw = "x" * 3980 + " sk-1234567890abcdef1234"  # 4004 units raw, 3991 once masked
    text, truncated, redacted = truncate_history_text(raw, default_redactor())
    assert text == "x" * 3980 + " sk-123…1234"
    assert (truncated, redacted) == (False, True)


def test_redaction_mode_off_still_redacts_what_leaves() -> None:
    raw = "key sk-1234567890abcdef1234"
    assert truncate_history_text(raw, Redactor(mode="off")) == ("key sk-123…1234", False, True)


# --- sanitize_history_message


def test_heavy_fields_are_deleted_and_count_as_truncation() -> None:
    message = {"role": "assistant", "content": "hi", "details": {}, "usage": {}, "cost": 0.1}
    entry, truncated, redacted = sanitize_history_message(message, default_redactor())
    assert entry == {"role": "assistant", "content": "hi"}
    assert (truncated, redacted) == (True, False)


def test_plain_message_is_unchanged_with_no_flags() -> None:
    message = {"role": "user", "content": "hello", "timestamp": 1}
    assert sanitize_history_message(message, default_redactor()) == (message, False, False)


def test_content_blocks_are_sanitised() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "y" * 4100},
            {"type": "thinking", "thinking": "z" * 10, "thinkingSignature": "sig"},
            {"type": "toolCall", "id": "t1", "name": "exec", "arguments": {"k": "v" * 5000}},
            {"type": "toolCall", "partialJson": '{"token":"abcdef1234567890ghij"}'},
        ],
    }
    entry, truncated, redacted = sanitize_history_message(message, default_redactor())
    text_block, thinking_block, tool_block, partial_block = entry["content"]
    assert text_block["text"] == "y" * 4000 + TRUNCATION_MARKER
    assert thinking_block == {"type": "thinking", "thinking": "z" * 10}
    assert tool_block == message["content"][2]
    assert partial_block["partialJson"] == '{"token":"abcdef…ghij"}'
    assert (truncated, redacted) == (True, True)


def test_thinking_signature_is_only_removed_from_thinking_blocks() -> None:
    block = {"type": "text", "text": "ok", "thinkingSignature": "sig"}
    entry, truncated, _ = sanitize_history_message({"content": [block]}, default_redactor())
    assert entry["content"] == [block]
    assert not truncated


def test_thinking_block_without_signature_is_not_truncated() -> None:
    message = {"content": [{"type": "thinking", "thinking": "short"}]}
    assert sanitize_history_message(message, default_redactor())[1] is False


def test_image_data_is_replaced_by_its_base64_length() -> None:
    data = "QUJD" * 250
    block = {"type": "image", "mimeType": "image/png", "data": data}
    message = {"role": "user", "content": [block]}
    entry, truncated, redacted = sanitize_history_message(message, default_redactor())
    assert entry["content"] == [{"type": "image", "mimeType": "image/png", "omitted": True, "bytes": 1000}]
    assert (truncated, redacted) == (True, False)


def test_image_without_data_is_marked_omitted_only() -> None:
    message = {"content": [{"type": "image", "url": "file:///x.png"}]}
    entry, truncated, _ = sanitize_history_message(message, default_redactor())
    assert entry["content"] == [{"type": "image", "url": "file:///x.png", "omitted": True}]
    assert not truncated


def test_image_with_empty_data_loses_the_key_but_gets_no_size() -> None:
    entry, truncated, _ = sanitize_history_message({"content": [{"type": "image", "data": ""}]}, default_redactor())
    assert entry["content"] == [{"type": "image", "omitted": True}]
    assert truncated


def test_top_level_text_field_is_sanitised() -> None:
    entry, truncated, redacted = sanitize_history_message(
        {"role": "assistant", "text": "TOKEN=shortvalue"}, default_redactor()
    )
    assert entry["text"] == "TOKEN=***"
    assert (truncated, redacted) == (False, True)


@pytest.mark.parametrize("message", ["just text", None, 42, ["a", "b"]])
def test_non_dict_messages_pass_through(message: object) -> None:
    result = sanitize_history_message(message, default_redactor())
    assert result[0] is message
    assert result[1:] == (False, False)


def test_non_dict_blocks_pass_through() -> None:
    message = {"content": ["raw", None, 3, {"type": "text", "text": "ok"}]}
    entry, truncated, _ = sanitize_history_message(message, default_redactor())
    assert entry["content"] == ["raw", None, 3, {"type": "text", "text": "ok"}]
    assert not truncated


def test_inputs_are_never_mutated() -> None:
    messages = [
        {
            "role": "assistant",
            "usage": {"input": 1},
            "content": [
                {"type": "text", "text": "sk-1234567890abcdef1234 " + "q" * 5000},
                {"type": "thinking", "thinking": "t", "thinkingSignature": "s"},
                {"type": "image", "data": "QUJD"},
            ],
        },
        {"role": "user", "content": "x" * 200_000},
    ]
    before = copy.deepcopy(messages)
    sanitize_history(messages, default_redactor())
    assert messages == before


# --- json_utf8_bytes


def test_json_bytes_are_compact_utf8() -> None:
    assert json_utf8_bytes({"a": "é", "b": [1, True, None]}) == len('{"a":"é","b":[1,true,null]}'.encode())
    assert json_utf8_bytes("😀") == 6
    assert json_utf8_bytes('a"\n') == len('"a\\"\\n"')


def test_json_bytes_spell_numbers_as_javascript_mostly_does() -> None:
    """`JSON.stringify([1e-7, 0.00001, 0.1, NaN, 5e-324])` is `[1e-7,0.00001,0.1,null,5e-324]`."""
    assert json_utf8_bytes([1e-7, 0.00001, 0.1, float("nan"), 5e-324]) == len("[1e-7,0.00001,0.1,null,5e-324]")


def test_json_bytes_of_what_orjson_refuses() -> None:
    assert json_utf8_bytes(2**70) == len(str(2**70))
    assert json_utf8_bytes({1: "a"}) == len('{"1":"a"}')


def test_json_bytes_count_lone_surrogates_as_escapes() -> None:
    assert json_utf8_bytes("\ud800") == 8  # "\ud800" escaped: quotes + 6
    assert json_utf8_bytes("\ud83d\ude00") == 6  # two code points forming one pair: 4 + quotes
    assert json_utf8_bytes(["x\udfff", "é"]) == len('["x","é"]'.encode()) + 6


# --- cap_history


def test_cap_of_empty_history() -> None:
    result = cap_history([])
    assert (result.messages, result.bytes, result.dropped_messages, result.hard_capped) == (
        [],
        2,
        False,
        False,
    )


def test_cap_keeps_everything_under_the_limit_with_exact_bytes() -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hé"}]
    result = cap_history(messages)
    assert result.messages == messages
    assert result.bytes == json_utf8_bytes(messages)
    assert not result.dropped_messages and not result.hard_capped


def test_cap_drops_the_oldest_first() -> None:
    messages = [{"i": index, "pad": "p" * 100} for index in range(10)]
    limit = json_utf8_bytes(messages[-3:])
    result = cap_history(messages, max_bytes=limit)
    assert [message["i"] for message in result.messages] == [7, 8, 9]
    assert result.bytes == limit
    assert result.dropped_messages and result.hard_capped


def test_cap_keeps_the_newest_alone_when_only_it_fits() -> None:
    messages = [{"content": "a" * 500}, {"content": "b" * 100}]
    result = cap_history(messages, max_bytes=200)
    assert result.messages == [{"content": "b" * 100}]
    assert result.bytes == json_utf8_bytes(result.messages)
    assert result.dropped_messages and result.hard_capped


def test_cap_replaces_an_oversized_newest_message_by_the_placeholder() -> None:
    result = cap_history([{"content": "a" * 10}, {"content": "b" * 500}], max_bytes=200)
    assert result.messages == [OMITTED_PLACEHOLDER]
    assert result.bytes == json_utf8_bytes([OMITTED_PLACEHOLDER])
    assert result.dropped_messages and result.hard_capped


def test_cap_placeholder_is_a_fresh_copy() -> None:
    result = cap_history([{"content": "b" * 500}], max_bytes=100)
    result.messages[0]["content"] = "changed"
    assert OMITTED_PLACEHOLDER["content"] == PLACEHOLDER_TEXT


def test_cap_sizes_each_message_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    real = sanitize.json_utf8_bytes

    def counting(value: object) -> int:
        calls.append(value)
        return real(value)

    monkeypatch.setattr(sanitize, "json_utf8_bytes", counting)
    messages = [{"i": index, "pad": "p" * 1000} for index in range(500)]
    result = cap_history(messages, max_bytes=20_000)
    assert len(result.messages) < 500
    assert len(calls) == 500


# --- sanitize_history: §18.1 sessions_history cases


def test_caps_oversized_payloads_and_strips_heavy_fields() -> None:
    messages = [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "a" * 5000},
                {"type": "thinking", "thinking": "b" * 7000, "thinkingSignature": "c" * 12000},
            ],
            "details": {"blob": "d" * 1000},
            "usage": {"input": 1, "output": 1},
        }
        for _ in range(80)
    ]
    result = sanitize_history(messages, default_redactor())
    assert result.truncated and result.dropped_messages and result.content_truncated
    assert result.hard_capped
    assert not result.content_redacted
    assert result.bytes <= 81920
    assert result.bytes == json_utf8_bytes(result.messages)
    assert len(result.messages) >= 1
    first = result.messages[0]
    assert "details" not in first and "usage" not in first
    text_block, thinking_block = first["content"]
    assert len(text_block["text"]) <= 4015
    assert "thinkingSignature" not in thinking_block


def test_hard_byte_cap_when_a_single_message_is_huge() -> None:
    messages = [{"role": "assistant", "content": "hi", "extra": "x" * 200_000}]
    result = sanitize_history(messages, default_redactor())
    assert result.truncated and result.dropped_messages and result.hard_capped
    assert not result.content_truncated and not result.content_redacted
    assert result.bytes <= 81920
    assert len(result.messages) == 1
    assert PLACEHOLDER_TEXT in result.messages[0]["content"]


def test_sets_content_redacted_when_sensitive_data_is_redacted() -> None:
    messages = [
        {
            "role": "assistant",
            "content": "Use sk-1234567890abcdef1234 to authenticate with the API.",
        }
    ]
    result = sanitize_history(messages, default_redactor())
    assert result.content_redacted
    assert not result.content_truncated and not result.truncated
    assert not result.dropped_messages and not result.hard_capped
    assert "sk-1234567890abcdef1234" not in json.dumps(result.messages)


def test_sets_content_redacted_and_content_truncated_independently() -> None:
    text = "safe text " * 420 + " sk-9876543210fedcba9876 end"
    result = sanitize_history([{"role": "assistant", "content": text}], default_redactor())
    assert result.content_redacted and result.content_truncated and result.truncated
    assert not result.dropped_messages
    assert "sk-9876543210fedcba9876" not in result.messages[0]["content"]


def test_sanitize_history_of_nothing() -> None:
    result = sanitize_history([], default_redactor())
    assert result.messages == [] and result.bytes == 2 and not result.truncated


# --- §4.8 text helpers


def test_strip_tool_messages_drops_tool_results_and_tool_roles() -> None:
    messages = [
        {"role": "toolResult", "content": "r"},
        {"role": "tool", "content": "r"},
        {"role": "assistant", "content": "a"},
        "raw",
        None,
        {"role": "user", "content": "u"},
    ]
    assert strip_tool_messages(messages) == [
        {"role": "assistant", "content": "a"},
        "raw",
        None,
        {"role": "user", "content": "u"},
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'Hello <invoke name="tool">payload</invoke></minimax:tool_call> [Tool Call: foo (ID: 1)] world',
            "Hello  world",
        ),
        ('Prefix\n<tool_result>{"output":"hidden"}</tool_result>\nSuffix', "Prefix\n\nSuffix"),
        ("Before <think>secret</think> after", "Before  after"),
    ],
)
def test_sanitize_text_content_ref_vectors(text: str, expected: str) -> None:
    assert sanitize_text_content(text).strip() == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a <thinking>x</thinking>b", "a b"),
        ("a <thought>x</thought>b", "a b"),
        ("a <antthinking>x</antthinking>b", "a b"),
        ("a <think>never closed", "a "),
        ("<final>answer</final>", "answer"),
        ("a <relevant-memories>m</relevant-memories>b", "a b"),
        ("a <relevant_memories>m</relevant_memories>b", "a b"),
        ('a <tool_call>{"name":"x"}</tool_call>b', "a b"),
        ('a <function_calls><invoke name="x"/></function_calls>b', "a b"),
        ('a <tool_calls>[{"id":1}]</tool_calls>b', "a b"),
        ('a <function_call>{"cut off', "a "),
        ("the <tool_call> tag is prose</tool_call>", "the <tool_call> tag is prose</tool_call>"),
        ("a<|im_end|>b", "a b"),
        ("a <|im_start|> b", "a  b"),
        ("a<｜begin▁of▁sentence｜>b", "a b"),
        ('Done.\n[Tool Call: exec (ID: 7)]\nArguments: {"cmd": "ls"}\nAfter', "Done.\nAfter"),
        ("Before\n[Tool Result for ID 7]\nsecret output", "Before"),
        ("[Historical context: earlier turns]\nNow", "Now"),
        ("plain text stays", "plain text stays"),
    ],
)
def test_sanitize_text_content_strips_scaffolding(text: str, expected: str) -> None:
    assert sanitize_text_content(text) == expected


def test_sanitize_text_content_does_not_trim() -> None:
    assert sanitize_text_content("  hello  ") == "  hello  "


def test_invoke_xml_is_kept_without_a_minimax_marker() -> None:
    text = 'see <invoke name="x">y</invoke>'
    assert sanitize_text_content(text) == text


def test_extract_assistant_text_joins_blocks_without_newlines() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Hi "},
            {"type": "text", "text": "<think>secret</think>there"},
            {"type": "toolCall", "name": "exec"},
        ],
    }
    assert extract_assistant_text(message) == "Hi there"


def test_extract_assistant_text_rewrites_errors_only_for_error_turns() -> None:
    content = [{"type": "text", "text": "500 Internal Server Error"}]
    error_turn = {"role": "assistant", "stopReason": "error", "content": content}
    normal_turn = {
        "role": "assistant",
        "stopReason": "stop",
        "errorMessage": "500 Internal Server Error",
        "content": content,
    }
    assert extract_assistant_text(error_turn) == "HTTP 500: Internal Server Error"
    assert extract_assistant_text(normal_turn) == "500 Internal Server Error"


def test_extract_assistant_text_prefers_final_answer_blocks() -> None:
    final = json.dumps({"v": 1, "id": "m2", "phase": "final_answer"})
    commentary = json.dumps({"v": 1, "id": "m1", "phase": "commentary"})
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me check. ", "textSignature": commentary},
            {"type": "text", "text": "The answer is 4.", "textSignature": final},
        ],
    }
    assert extract_assistant_text(message) == "The answer is 4."


def test_extract_assistant_text_uses_all_blocks_without_final_answer_phase() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "one ", "textSignature": "msg_opaque_id"},
            {"type": "text", "text": "two", "textSignature": "{not json"},
        ],
    }
    assert extract_assistant_text(message) == "one two"


def test_extract_assistant_text_accepts_string_content() -> None:
    message = {"role": "assistant", "content": "  <think>x</think>Answer  "}
    assert extract_assistant_text(message) == "Answer"


@pytest.mark.parametrize(
    "message",
    [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": [{"type": "text", "text": "<think>only</think>  "}]},
        {"role": "assistant", "content": [{"type": "toolCall", "name": "exec"}]},
        {"role": "assistant"},
        "assistant",
        None,
    ],
)
def test_extract_assistant_text_returns_none_without_visible_text(message: object) -> None:
    assert extract_assistant_text(message) is None
