use leptos::prelude::*;

/// A file's text with line numbers and light token colouring: keywords,
/// strings, numbers and line comments of common languages, one line at a
/// time (no block comments, no parser: cheap, and never wrong by much).
#[component]
pub fn CodeView(content: String, language: Option<String>) -> AnyView {
    let syntax = Syntax::of(language.as_deref());
    let lines = content.lines().enumerate().map(|(index, line)| {
        let tokens = syntax.map(|s| s.tokens(line)).unwrap_or_else(|| vec![(None, line.to_string())]);
        view! {
            <span class="code-line"><span class="ln" aria-hidden="true">{index + 1}</span>
                {tokens.into_iter().map(|(class, text)| view! { <span class=class>{text}</span> }).collect_view()}
            "\n"</span>
        }
    });
    view! { <pre class="source" tabindex="0" aria-label="File content" data-test="file-content">{lines.collect_view()}</pre> }
        .into_any()
}

#[derive(Clone, Copy)]
struct Syntax {
    keywords: &'static [&'static str],
    comment: &'static str,
    /// String delimiters (not `'` in Rust: lifetimes).
    quotes: &'static str,
}

const C_LIKE: &[&str] = &[
    "if",
    "else",
    "for",
    "while",
    "return",
    "break",
    "continue",
    "switch",
    "case",
    "default",
    "struct",
    "enum",
    "const",
    "static",
    "void",
    "int",
    "char",
    "true",
    "false",
    "null",
    "new",
    "class",
    "public",
    "private",
    "protected",
    "import",
    "package",
    "function",
    "var",
    "let",
    "export",
    "from",
    "async",
    "await",
    "interface",
    "type",
    "extends",
    "implements",
    "this",
    "throw",
    "try",
    "catch",
    "finally",
    "typeof",
    "undefined",
    "func",
    "go",
    "defer",
    "nil",
];
const RUST: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "Some", "None", "Ok", "Err",
];
const PYTHON: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
    "else", "except", "False", "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True", "try", "while",
    "with", "yield", "self",
];
const SHELL: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "in", "do", "done", "while", "case", "esac",
    "function", "return", "export", "local", "set",
];

impl Syntax {
    fn of(language: Option<&str>) -> Option<Syntax> {
        let (keywords, comment, quotes) = match language? {
            "rust" => (RUST, "//", "\""),
            "python" => (PYTHON, "#", "\"'"),
            "shell" | "bash" | "toml" | "yaml" | "ruby" | "makefile" | "dockerfile" => {
                (SHELL, "#", "\"'")
            }
            "typescript" | "javascript" | "go" | "java" | "kotlin" | "c" | "cpp" | "csharp"
            | "php" | "swift" | "scala" => (C_LIKE, "//", "\"'`"),
            _ => return None,
        };
        Some(Syntax {
            keywords,
            comment,
            quotes,
        })
    }

    /// The line cut into (class, text) runs; their texts add up to the line.
    fn tokens(self, line: &str) -> Vec<(Option<&'static str>, String)> {
        let mut out: Vec<(Option<&'static str>, String)> = Vec::new();
        let mut push = |class: Option<&'static str>, text: &str| match out.last_mut() {
            Some((last, run)) if *last == class => run.push_str(text),
            _ => out.push((class, text.to_string())),
        };
        let mut rest = line;
        while let Some(c) = rest.chars().next() {
            if rest.starts_with(self.comment) {
                push(Some("tok-com"), rest);
                break;
            }
            let len = if self.quotes.contains(c) {
                // To the closing quote (skipping escapes), or the line's end.
                let mut end = rest.len();
                let mut escaped = false;
                for (i, ch) in rest.char_indices().skip(1) {
                    if escaped {
                        escaped = false;
                    } else if ch == '\\' {
                        escaped = true;
                    } else if ch == c {
                        end = i + ch.len_utf8();
                        break;
                    }
                }
                push(Some("tok-str"), &rest[..end]);
                end
            } else if c.is_alphanumeric() || c == '_' {
                let end = rest
                    .char_indices()
                    .find(|(_, ch)| !(ch.is_alphanumeric() || *ch == '_'))
                    .map_or(rest.len(), |(i, _)| i);
                let word = &rest[..end];
                let class = if c.is_ascii_digit() {
                    Some("tok-num")
                } else if self.keywords.contains(&word) {
                    Some("tok-kw")
                } else {
                    None
                };
                push(class, word);
                end
            } else {
                push(None, &rest[..c.len_utf8()]);
                c.len_utf8()
            };
            rest = &rest[len..];
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Syntax;

    #[test]
    fn tokens_cover_the_line_exactly() {
        let rust = Syntax::of(Some("rust")).unwrap();
        let line = r#"let s = "a \"q\" é"; // done 42"#;
        let tokens = rust.tokens(line);
        assert_eq!(
            tokens.iter().map(|(_, t)| t.as_str()).collect::<String>(),
            line
        );
        assert_eq!(tokens[0], (Some("tok-kw"), "let".to_string()));
        assert!(tokens.contains(&(Some("tok-str"), r#""a \"q\" é""#.to_string())));
        assert_eq!(tokens.last().unwrap().0, Some("tok-com"));
        let open = rust.tokens("x = \"unterminated é");
        assert_eq!(open.last().unwrap().1, "\"unterminated é");
        assert!(Syntax::of(Some("markdown")).is_none());
    }
}
