"""Assistant-visible text, as OpenClaw's `chat-history-text` helpers compute it: the reply a user
would see, with reasoning, recalled memories, tool-call scaffolding and leaked control tokens
taken out.

Used where a reply is read back as text: the agent-to-agent steps and the send report.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

_MINIMAX_QUICK_RE = re.compile(r"minimax:tool_call", re.IGNORECASE)
_MINIMAX_XML_RE = re.compile(r"<invoke\b[^>]*>[\s\S]*?</invoke>|</?minimax:tool_call>", re.I)
_SPECIAL_TOKEN_RE = re.compile(r"<[|｜][^|｜]*[|｜]>")
_MEMORY_TAG_RE = re.compile(r"<\s*(/?)\s*relevant[-_]memories\b[^<>]*>", re.IGNORECASE)
_THINKING_TAG_RE = re.compile(r"<\s*(/?)\s*(?:think(?:ing)?|thought|antthinking)\b[^<>]*>", re.IGNORECASE)
_FINAL_TAG_RE = re.compile(r"<\s*/?\s*final\b[^<>]*>", re.IGNORECASE)
_TOOL_TAG_RE = re.compile(r"<\s*(/?)\s*(tool_calls?|tool_result|function_calls?)\b[^<>]*>", re.IGNORECASE)
_TOOL_CLOSE_RES = {
    name: re.compile(rf"<\s*/\s*{name}\s*>", re.IGNORECASE)
    for name in ("tool_call", "tool_calls", "tool_result", "function_call", "function_calls")
}
_STRUCTURED_PAYLOAD_RE = re.compile(r"\s*[\[{<]")
_SELF_CLOSING_RE = re.compile(r"/\s*>$")
_DOWNGRADED_QUICK_RE = re.compile(r"\[Tool (?:Call|Result)|\[Historical context", re.IGNORECASE)
_DOWNGRADED_CALL_RE = re.compile(r"\[Tool Call:[^\]]*\]", re.IGNORECASE)
_DOWNGRADED_RESULT_RE = re.compile(r"\[Tool Result for ID[^\]]*\]\n?[\s\S]*?(?=\n*\[Tool |\n*\Z)", re.IGNORECASE)
_HISTORICAL_CONTEXT_RE = re.compile(r"\[Historical context:[^\]]*\]\n?", re.IGNORECASE)


def _strip_minimax_tool_xml(text: str) -> str:
    """MiniMax sometimes writes its tool calls into the text as `<invoke>` XML."""
    if not _MINIMAX_QUICK_RE.search(text):
        return text
    return _MINIMAX_XML_RE.sub("", text)


def _strip_special_tokens(text: str) -> str:
    """Leaked control tokens (`<|assistant|>`, `<｜begin▁of▁sentence｜>`); a space keeps the
    neighbouring words apart when the token glued them together."""

    def replace(match: re.Match[str]) -> str:
        before = text[match.start() - 1] if match.start() else ""
        after = text[match.end()] if match.end() < len(text) else ""
        glued = before and after and not before.isspace() and not after.isspace()
        return " " if glued else ""

    return _SPECIAL_TOKEN_RE.sub(replace, text)


def _strip_tag_blocks(text: str, tag_re: re.Pattern[str]) -> str:
    """Remove everything from an opening tag to its closing tag (or to the end when unclosed);
    stray closing tags and self-closing tags disappear on their own."""
    out: list[str] = []
    position = 0
    inside = False
    for match in tag_re.finditer(text):
        is_close = match.group(1) == "/"
        if not inside:
            out.append(text[position : match.start()])
            inside = not is_close and not _SELF_CLOSING_RE.search(match.group(0))
        elif is_close:
            inside = False
        position = match.end()
    if not inside:
        out.append(text[position:])
    return "".join(out)


def _strip_tool_call_xml(text: str) -> str:
    """Plain-text tool-call XML: a block whose payload is JSON or XML goes (through its closing
    tag, or to the end of a cut-off stream); a tag around prose stays with its closing tag."""
    out: list[str] = []
    position = 0
    open_visible: Counter[str] = Counter()
    while match := _TOOL_TAG_RE.search(text, position):
        name, tag = match.group(2).lower(), match.group(0)
        out.append(text[position : match.start()])
        position = match.end()
        if match.group(1) == "/":
            if open_visible[name]:
                open_visible[name] -= 1
                out.append(tag)
        elif _SELF_CLOSING_RE.search(tag):
            continue
        elif _STRUCTURED_PAYLOAD_RE.match(text, position):
            close = _TOOL_CLOSE_RES[name].search(text, position)
            if close is None:
                return "".join(out)
            position = close.end()
        else:
            open_visible[name] += 1
            out.append(tag)
    out.append(text[position:])
    return "".join(out)


def _skip_jsonish(text: str, start: int) -> int | None:
    """End of the JSON object/array, string or rest-of-line value starting at `start`
    (leading blanks and newlines skipped); None when it does not end."""
    index = start
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    if index >= len(text):
        return None
    opener = text[index]
    if opener in "{[":
        depth = 0
        in_string = escaped = False
        for position in range(index, len(text)):
            char = text[position]
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char in "{[":
                depth += 1
            elif char in "}]":
                depth -= 1
                if depth == 0:
                    return position + 1
        return None
    if opener == '"':
        escaped = False
        for position in range(index + 1, len(text)):
            char = text[position]
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                return position + 1
        return None
    end = index
    while end < len(text) and text[end] not in "\r\n":
        end += 1
    return end


def _skip_blanks(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index


def _skip_line_break(text: str, index: int) -> int:
    if text.startswith("\r\n", index):
        return index + 2
    return index + 1 if index < len(text) and text[index] in "\r\n" else index


def _strip_downgraded_tool_calls(text: str) -> str:
    """`[Tool Call: name (ID: …)]` markers with their `Arguments: …` payload."""
    out: list[str] = []
    last_char = ""
    cursor = 0
    for match in _DOWNGRADED_CALL_RE.finditer(text):
        if match.start() < cursor:
            continue
        kept = text[cursor : match.start()]
        out.append(kept)
        last_char = kept[-1:] or last_char
        index = _skip_blanks(text, _skip_line_break(text, _skip_blanks(text, match.end())))
        if text[index : index + 9].lower() == "arguments":
            index += 9
            if text.startswith(":", index):
                index += 1
            if text.startswith(" ", index):
                index += 1
            end = _skip_jsonish(text, index)
            if end is not None:
                index = end
        if text[index : index + 1] in ("\r", "\n") and last_char in ("", "\r", "\n"):
            index = _skip_line_break(text, index)
        cursor = index
    out.append(text[cursor:])
    return "".join(out)


def _strip_downgraded_markers(text: str) -> str:
    """Text forms of tool calls/results left behind when history is replayed across providers."""
    if not _DOWNGRADED_QUICK_RE.search(text):
        return text
    cleaned = _strip_downgraded_tool_calls(text)
    cleaned = _DOWNGRADED_RESULT_RE.sub("", cleaned)
    cleaned = _HISTORICAL_CONTEXT_RE.sub("", cleaned)
    return cleaned.strip()


def sanitize_text_content(text: str) -> str:
    """OpenClaw's `sanitizeTextContent` (assistant-visible text, profile `history`): hide reasoning,
    recalled memories, tool-call scaffolding and control tokens. No final trim."""
    if not text:
        return text
    cleaned = _strip_minimax_tool_xml(text)
    cleaned = _strip_special_tokens(cleaned)
    cleaned = _strip_tag_blocks(cleaned, _MEMORY_TAG_RE)
    cleaned = _strip_tool_call_xml(cleaned)
    cleaned = _strip_downgraded_markers(cleaned)
    cleaned = _FINAL_TAG_RE.sub("", cleaned)
    return _strip_tag_blocks(cleaned, _THINKING_TAG_RE)


_HTTP_STATUS_TEXT_RE = re.compile(r"([0-9]{3})\s+(.+)")


def _text_signature_phase(signature: Any) -> str | None:
    if not isinstance(signature, str) or not signature.startswith("{"):
        return None
    try:
        parsed = json.loads(signature)
    except ValueError:
        return None
    phase = parsed.get("phase") if isinstance(parsed, dict) else None
    return phase if isinstance(phase, str) else None


def extract_assistant_text(message: Any) -> str | None:
    """OpenClaw's `extractAssistantText`: the reply text a user would see, or None when there is none.

    Only the `final_answer` text blocks count when any text block is marked with that phase.
    A bare `"500 Internal Server Error"` becomes `"HTTP 500: Internal Server Error"`, but only
    when the turn actually ended in an error (`stopReason == "error"`).
    """
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return None
    content = message.get("content")
    if isinstance(content, str):
        joined = sanitize_text_content(content).strip()
    elif isinstance(content, list):
        texts = [
            block
            for block in content
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
        ]
        final = [block for block in texts if _text_signature_phase(block.get("textSignature")) == "final_answer"]
        parts = (sanitize_text_content(block["text"]) for block in final or texts)
        joined = "".join(part for part in parts if part.strip()).strip()
    else:
        return None
    if not joined:
        return None
    if message.get("stopReason") == "error":
        status = _HTTP_STATUS_TEXT_RE.fullmatch(joined)
        if status:
            return f"HTTP {status.group(1)}: {status.group(2)}"
    return joined
