"""A session as one self-contained HTML page: the Markdown export's content, styled inline.

No script, no external resource (a Content-Security-Policy that allows only the inline style
says so to the browser too); every piece of agent text is HTML-escaped, quotes included, after
its control characters were made visible. Light and dark follow `prefers-color-scheme`.
"""

from __future__ import annotations

from html import escape

from sessions_tui.engine.export.items import Item, Part, export_facts, heading_words, safe_line, transcript_items
from sessions_tui.engine.export.model import SessionExport

_CSS = """
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0;
  --user: #ddf4ff; --assistant: #f6f8fa; --tool: #fff8c5; --error: #ffebe9; --code: #eff2f5; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d;
    --user: #0c2d4a; --assistant: #151b23; --tool: #2e2a12; --error: #3c1618; --code: #1f2428; }
}
body { background: var(--bg); color: var(--fg); margin: 0 auto; max-width: 60rem; padding: 1.5rem;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.4rem; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; color: var(--muted); }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.note { color: var(--muted); font-style: italic; }
.secrets { color: #cf222e; font-weight: 600; }
section.msg { border: 1px solid var(--line); border-radius: 8px; margin: 1rem 0; padding: 0.5rem 1rem;
  background: var(--assistant); }
section.user { background: var(--user); } section.toolResult { background: var(--tool); }
section.error { background: var(--error); }
section.msg h2 { font-size: 0.9rem; margin: 0.2rem 0; color: var(--muted); font-weight: 600; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.4rem 0;
  font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre.code { background: var(--code); border-radius: 6px; padding: 0.5rem; }
.tool { font-weight: 600; }
"""


def _part(part: Part) -> str:
    if part.kind == "text":
        return f"<pre>{escape(part.text)}</pre>" if part.text.strip() else ""
    if part.kind == "thinking":
        return '<p class="note">(thinking omitted)</p>'
    if part.kind == "image":
        return '<p class="note">[image]</p>'
    if part.kind == "tool_call":
        return f'<p class="tool">Tool call {escape(part.name)}</p><pre class="code">{escape(part.text)}</pre>'
    if part.kind == "tool_result":
        return f'<pre class="code">{escape(part.text)}</pre>'
    return f'<p class="note">[{escape(part.name)}]</p>'


def _section(number: int, item: Item) -> str:
    words = heading_words(number, item)
    classes = " ".join(["msg", item.role, *(["error"] if item.error else [])])
    body = "".join(_part(part) for part in item.parts)
    return f'<section class="{escape(classes)}"><h2>{escape(" · ".join(words))}</h2>{body}</section>'


def render_html(export: SessionExport) -> str:
    """The whole page, ending in one newline."""
    items = transcript_items(export.lines)
    title = escape(safe_line(export.key))
    facts = export_facts(export, len(items))
    rows = "".join(f"<dt>{name}</dt><dd>{escape(safe_line(value))}</dd>" for name, value in facts)
    redaction = (
        '<p class="note">Redacted: secrets are masked.</p>'
        if export.redacted
        else '<p class="secrets">Not redacted: this page may hold secrets.</p>'
    )
    sections = "\n".join(_section(n, item) for n, item in enumerate(items, start=1))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Session {title}</title>\n<style>{_CSS}</style></head>\n"
        f'<body><h1>Session {title}</h1><dl class="facts">{rows}</dl>{redaction}\n{sections}\n</body></html>\n'
    )
