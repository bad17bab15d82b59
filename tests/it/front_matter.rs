//! Front matter as authors from Zola and Hugo write it: `---` lines with trailing
//! blanks after a byte-order mark, `extra:` for templates, `slug:` for the address and
//! `aliases:` for old addresses, each mistake placed at its value.

use crate::bundles::{built, read, refused, site};

#[test]
fn a_fence_with_trailing_blanks_after_a_byte_order_mark_opens_and_closes_the_front_matter() {
    let dir = site(&[
        (
            "content/index.md",
            "\u{feff}--- \t\ntitle: Home\n---  \nBody.\n\n---\n\nAfter a rule.\n".as_bytes(),
        ),
        ("content/a.md", b"---\r\ntitle: A\r\n---\t\r\nText.\r\n"),
    ]);
    built(dir.path());
    let home = read(dir.path(), "index.html");
    assert!(home.contains("<h1>Home</h1>"), "{home}");
    assert!(
        home.contains("<p>Body.</p>\n<hr />\n<p>After a rule.</p>"),
        "{home}"
    );
    assert!(read(dir.path(), "a/index.html").contains("<p>Text.</p>"));
}

#[test]
fn extra_reaches_the_templates_with_its_types() {
    let dir = site(&[
        (
            "content/index.md",
            b"---\ntitle: Home\nextra:\n  video: intro.mp4\n  minutes: 3\n  \
              wide: true\n  people: [Ada, Grace]\n  code: \"007\"\n---\nText.\n",
        ),
        (
            "templates/index.html",
            b"{{ page.extra.video }}|{{ page.extra.minutes + 1 }}|{% if page.extra.wide %}wide{% endif %}|\
              {{ page.extra.people | join(sep=\",\") }}|{{ page.extra.code }}\
              {% for p in pages %}|{{ p.extra.video }}{% endfor %}\n",
        ),
    ]);
    built(dir.path());
    // The page itself, then the list of pages that indexes read.
    assert_eq!(
        read(dir.path(), "index.html"),
        "intro.mp4|4|wide|Ada,Grace|007|intro.mp4\n"
    );
    let dir = site(&[(
        "content/index.md",
        b"---\ntitle: Home\nextra: [a, b]\n---\nText.\n",
    )]);
    refused(
        dir.path(),
        "error: `extra` must be a map of keys, found a list\n \
         --> content/index.md:3:8\n  |\n3 | extra: [a, b]\n  |        ^\n  \
         = help: write keys under it, such as `extra:` and then `  video: intro.mp4`\n\n\
         error: 1 problem found",
    );
}

#[test]
fn a_slug_sets_the_last_part_of_the_address() {
    let dir = site(&[
        (
            "content/index.md",
            b"---\ntitle: Home\n---\n[n](notes/old-name.md) [b](bundle/index.md#p)\n",
        ),
        (
            "content/notes/old-name.md",
            b"---\ntitle: Notes\nslug: fresh start\n---\nText.\n",
        ),
        (
            "content/bundle/index.md",
            b"---\ntitle: Bundle\nslug: moved\n---\n## P\n\n![p](p.png)\n",
        ),
        ("content/bundle/p.png", b"P"),
    ]);
    built(dir.path());
    let home = read(dir.path(), "index.html");
    assert!(
        home.contains(
            "<a href=\"/test/notes/fresh%20start/\">n</a> <a href=\"/test/moved/#p\">b</a>"
        ),
        "{home}"
    );
    assert!(read(dir.path(), "notes/fresh start/index.html").contains("<title>Notes"));
    // The page moves; the files beside it stay where they are, and its image follows.
    let bundle = read(dir.path(), "moved/index.html");
    assert!(
        bundle.contains("<img src=\"/test/bundle/p.png\""),
        "{bundle}"
    );
    assert!(dir.path().join("public/bundle/p.png").is_file());
    assert!(!dir.path().join("public/bundle/index.html").exists());
}

#[test]
fn a_slug_that_is_no_address_is_refused_at_its_value() {
    let dir = site(&[
        (
            "content/index.md",
            b"---\ntitle: Home\nslug: home\n---\nText.\n",
        ),
        ("content/a.md", b"---\ntitle: A\nslug: \"\"\n---\nText.\n"),
        ("content/b.md", b"---\ntitle: B\nslug: x/y\n---\nText.\n"),
        ("content/c.md", b"---\ntitle: C\nslug: ..\n---\nText.\n"),
        (
            "content/d.md",
            b"---\ntitle: D\nslug: \"a\\tb\"\n---\nText.\n",
        ),
        ("content/e.md", b"---\ntitle: E\nslug: a\n---\nText.\n"),
        ("content/f.md", b"---\ntitle: F\nslug: a\n---\nText.\n"),
    ]);
    refused(
        dir.path(),
        r#"error: `slug` is empty
 --> content/a.md:3:7
  |
3 | slug: ""
  |       ^^
  = help: write the last part of the page's address, such as `retries`

error: `slug` must be one part of an address, found `x/y`
 --> content/b.md:3:7
  |
3 | slug: x/y
  |       ^^^
  = help: a slug holds no `/`: move the file to change the folders above it

error: `slug` cannot be an address: `.` and `..` name folders relative to another, not a place of their own
 --> content/c.md:3:7
  |
3 | slug: ..
  |       ^^
  = help: write the last part of the page's address, such as `retries`

error: `slug` cannot be an address: it holds a control character
 --> content/d.md:3:7
  |
3 | slug: "a\tb"
  |       ^^^^^
  = help: write the last part of the page's address, such as `retries`

error: two pages have the address `/a/`: content/e.md and content/f.md
 --> content/f.md
  = help: rename or move one of them: a page's address is its path below content/ without `.md`, and `index.md` stands for its folder

error: the home page takes no `slug`: its address is the site's root
 --> content/index.md:3:7
  |
3 | slug: home
  |       ^^^^
  = help: remove `slug:` from content/index.md

error: 6 problems found"#,
    );
}

#[test]
fn aliases_send_readers_on_and_are_listed_nowhere() {
    let dir = site(&[
        ("content/index.md", b"---\ntitle: Home\n---\nText.\n"),
        (
            "content/new.md",
            b"---\ntitle: New & improved\naliases: [/old/, \"2019/post.html\", /old%20notes/]\n---\nText.\n",
        ),
    ]);
    built(dir.path());
    let expected = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
        <title>New &amp; improved</title>\n<meta name=\"robots\" content=\"noindex\">\n\
        <link rel=\"canonical\" href=\"https://example.org/test/new/\">\n\
        <meta http-equiv=\"refresh\" content=\"0; url=https://example.org/test/new/\">\n</head>\n<body>\n\
        <p>This page has moved to <a href=\"https://example.org/test/new/\">New &amp; improved</a>.</p>\n\
        </body>\n</html>\n";
    for file in ["old/index.html", "2019/post.html", "old notes/index.html"] {
        assert_eq!(read(dir.path(), file), expected, "{file}");
    }
    for file in ["sitemap.xml", "atom.xml", "index.html"] {
        let text = read(dir.path(), file);
        // The aliases' addresses, not the letters (a `placeholder` has them).
        for alias in ["/old/", "/2019/", "/old%20notes/", "/old notes/"] {
            assert!(!text.contains(alias), "{file} has {alias}: {text}");
        }
    }
}

#[test]
fn an_alias_that_is_no_address_or_takes_another_files_place_is_refused() {
    let dir = site(&[
        ("content/index.md", b"---\ntitle: Home\n---\nText.\n"),
        ("content/taken.md", b"---\ntitle: Taken\n---\nText.\n"),
        (
            "content/a.md",
            b"---\ntitle: A\naliases:\n  - /x/../y/\n  - https://elsewhere.org/a/\n  - /\n  - /taken/\n  - /style.css\n---\nText.\n",
        ),
    ]);
    refused(
        dir.path(),
        r#"error: the alias `/x/../y/` cannot be an address: `.` and `..` name folders relative to another, not a place of their own
 --> content/a.md:4:5
  |
4 |   - /x/../y/
  |     ^^^^^^^^
  = help: an alias is an address of this site, such as `/old/path/`

error: the alias `https://elsewhere.org/a/` is on another site
 --> content/a.md:5:5
  |
5 |   - https://elsewhere.org/a/
  |     ^^^^^^^^^^^^^^^^^^^^^^^^
  = help: an alias is an address of this site, such as `/old/path/`

error: the alias `/` is the site's root, the home page's address
 --> content/a.md:6:5
  |
6 |   - /
  |     ^
  = help: an alias is an address of this site, such as `/old/path/`

error: 3 problems found"#,
    );
    std::fs::write(
        dir.path().join("content/a.md"),
        "---\ntitle: A\naliases: [/taken/, /style.css/, /a/]\n---\nText.\n",
    )
    .unwrap();
    refused(
        dir.path(),
        "error: the alias `/a/` of the page content/a.md would be written to `a/index.html`, where the page content/a.md is written\n \
         --> content/a.md\n  \
         = help: remove the alias, or choose another address for it\n\n\
         error: the alias `/style.css/` of the page content/a.md needs a folder `style.css`, but the stylesheet, `style.css` is written there\n \
         --> content/a.md\n  \
         = help: remove the alias, or choose another address for it\n\n\
         error: the alias `/taken/` of the page content/a.md would be written to `taken/index.html`, where the page content/taken.md is written\n \
         --> content/a.md\n  \
         = help: remove the alias, or choose another address for it\n\n\
         error: 3 problems found",
    );
}
