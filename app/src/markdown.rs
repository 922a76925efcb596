//! Model text to HTML, safely: Markdown is rendered by pulldown-cmark, but
//! any raw HTML in the text is turned into escaped text, and links and
//! images keep only http(s), mailto and relative URLs. Nothing the model
//! writes becomes markup of its own.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag};

pub fn to_html(text: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        other => other,
    });
    let mut out = String::with_capacity(text.len() * 3 / 2);
    html::push_html(&mut out, events);
    // Raw HTML was escaped above, so every <pre> here is a code block of
    // ours: give each a copy button (the transcript handles its clicks).
    out.replace(
        "<pre>",
        "<div class=\"code\"><button type=\"button\" class=\"copy\" aria-label=\"Copy code\">Copy</button><pre>",
    )
    .replace("</pre>", "</pre></div>")
}

/// [`to_html`] in the browser: pulldown-cmark and its entity table are a
/// chunk of their own (~30 KB br), fetched the first time a message needs
/// them. `Err` when the chunk cannot be fetched (codewhale stopped, or
/// updated since the page loaded).
#[cfg(feature = "hydrate")]
#[leptos::wasm_split::wasm_split(
    markdown,
    wasm_split_path = ::leptos::wasm_split,
    fallible
)]
pub fn to_html_in_chunk(text: String) -> Result<String, leptos::wasm_split::SplitLoaderError> {
    Ok(to_html(&text))
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(s, _)| s);
    match scheme {
        None => url,
        Some(s) if s.contains('/') || s.contains('?') || s.contains('#') => url,
        Some("http" | "https" | "mailto") => url,
        Some(_) => CowStr::Borrowed("#"),
    }
}

#[cfg(test)]
mod tests {
    use super::to_html;

    #[test]
    fn raw_html_is_shown_as_text() {
        let html = to_html("Hi <script>alert(1)</script> <img src=x onerror=alert(1)>");
        assert!(!html.contains("<script") && !html.contains("<img"));
        assert!(html.contains("&lt;script&gt;"));
    }

    #[test]
    fn dangerous_links_are_neutralized() {
        let html = to_html(
            "[a](javascript:alert(1)) [b](https://example.com) [c](docs/x.md) [d]( JAVASCRIPT:x)",
        );
        assert!(!html.to_lowercase().contains("javascript:"));
        assert!(
            html.contains("href=\"https://example.com\"") && html.contains("href=\"docs/x.md\"")
        );
    }

    #[test]
    fn code_blocks_and_tables_render() {
        let html = to_html("```rust\nfn main() {}\n```\n\n|a|b|\n|-|-|\n|1|2|");
        assert!(html.contains("<pre><code class=\"language-rust\">"));
        assert!(html.contains("class=\"copy\""));
        assert!(html.contains("<table>"));
    }
}
