"""The conformance page's HTML is its markdown rendered by markdown-it-py: tables, lists, code
spans, and the page's quoted error messages escaped rather than read as tags."""

from __future__ import annotations

from ndcgspec.harness.analysis.matrix import markdown_html

PAGE = """## Presets

| preset | library | pass |
|---|---|---|
| `ranx` | ranx | 313 |

- sklearn: errors (ValueError: <temporary file> & y < 0) on `sklearn.1/a`
"""


def test_tables_lists_and_code_spans_become_html() -> None:
    html = markdown_html(PAGE)
    assert "<h2>Presets</h2>" in html
    assert "<th>preset</th>" in html and "<td><code>ranx</code></td>" in html
    assert "<td>313</td>" in html and "<table>" in html
    assert "<li>sklearn: errors (ValueError: &lt;temporary file&gt; &amp; y &lt; 0)" in html
    assert "<code>sklearn.1/a</code></li>" in html


def test_raw_html_in_a_message_stays_text() -> None:
    assert markdown_html("- crash: <script>x</script>\n") == (
        "<ul>\n<li>crash: &lt;script&gt;x&lt;/script&gt;</li>\n</ul>\n"
    )
