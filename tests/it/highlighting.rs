//! Code blocks through the whole pipeline: the languages authors write most are
//! highlighted, and an info string with attributes is read by its first word.

use crate::bundles::{built, read, site};

#[test]
fn an_info_string_with_attributes_is_highlighted_by_its_first_word() {
    let dir = site(&[(
        "content/index.md",
        b"---\ntitle: Home\n---\n```rust,ignore\nfn main() {}\n```\n\n\
          ```python {.class}\nx = 1\n```\n\n```toml title=\"Cargo.toml\"\n[package]\n```\n\n\
          ```console\n$ cargo run\n```\n",
    )]);
    built(dir.path());
    let html = read(dir.path(), "index.html");
    for (n, language, source) in [
        (1, "rust", "rust"),
        (2, "python", "python"),
        (3, "toml", "toml"),
        (4, "console", "shell"),
    ] {
        let block = format!(
            "aria-label=\"Code example {n} ({language})\"><pre class=\"hl-code\">\
             <code class=\"language-{language}\"><span class=\"hl-source hl-{source}"
        );
        assert!(html.contains(&block), "{block} in {html}");
    }
}
