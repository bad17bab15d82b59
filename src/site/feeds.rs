//! The files a published site carries beside its pages: `sitemap.xml`, the Atom feed
//! `atom.xml` and `robots.txt`. Every address is absolute, made from `base_url`, and
//! nothing depends on the clock, so two builds give the same bytes.

use super::config::Config;
use super::page::Page;
use crate::chart::table::escape;

/// The feed's file name, also linked from every page.
pub const FEED: &str = "atom.xml";
/// The sitemap's file name.
pub const SITEMAP: &str = "sitemap.xml";

/// A date of front matter as an Atom/RFC 3339 time: midnight UTC.
fn timestamp(date: &str) -> String {
    format!("{date}T00:00:00Z")
}

/// `sitemap.xml`: every page, in address order, with its date when it has one.
pub fn sitemap(config: &Config, pages: &[Page]) -> String {
    let mut sorted: Vec<&Page> = pages.iter().collect();
    sorted.sort_by(|a, b| a.url.cmp(&b.url));
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for page in sorted {
        xml.push_str(&format!(
            "  <url>\n    <loc>{}</loc>\n",
            escape(&format!("{}{}", config.base_url, page.url))
        ));
        if !page.front.date.is_empty() {
            xml.push_str(&format!("    <lastmod>{}</lastmod>\n", page.front.date));
        }
        xml.push_str("  </url>\n");
    }
    xml.push_str("</urlset>\n");
    xml
}

/// `atom.xml`: the dated pages, newest first. The feed's `updated` is the newest page's
/// date (the Unix epoch when no page has one), never the time of the build.
pub fn atom(config: &Config, pages: &[Page]) -> String {
    let mut dated: Vec<&Page> = pages.iter().filter(|p| !p.front.date.is_empty()).collect();
    dated.sort_by(|a, b| {
        (&b.front.date, &a.front.title, &a.url).cmp(&(&a.front.date, &b.front.title, &b.url))
    });
    let updated = dated
        .first()
        .map_or_else(|| timestamp("1970-01-01"), |p| timestamp(&p.front.date));
    let author = if config.author.is_empty() {
        &config.title
    } else {
        &config.author
    };
    let base = escape(&config.base_url);
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\">\n\
         \x20 <title>{}</title>\n",
        escape(&config.language),
        escape(&config.title)
    );
    if !config.description.is_empty() {
        xml.push_str(&format!(
            "  <subtitle>{}</subtitle>\n",
            escape(&config.description)
        ));
    }
    xml.push_str(&format!(
        "  <link rel=\"self\" type=\"application/atom+xml\" href=\"{base}{FEED}\"/>\n\
         \x20 <link rel=\"alternate\" type=\"text/html\" href=\"{base}\"/>\n\
         \x20 <id>{base}</id>\n\
         \x20 <updated>{updated}</updated>\n\
         \x20 <author><name>{}</name></author>\n\
         \x20 <generator>retrylab</generator>\n",
        escape(author)
    ));
    for page in dated {
        let link = escape(&format!("{}{}", config.base_url, page.url));
        let summary = if page.front.description.is_empty() {
            &page.front.title
        } else {
            &page.front.description
        };
        xml.push_str(&format!(
            "  <entry>\n\
             \x20   <title>{}</title>\n\
             \x20   <link rel=\"alternate\" type=\"text/html\" href=\"{link}\"/>\n\
             \x20   <id>{link}</id>\n\
             \x20   <published>{time}</published>\n\
             \x20   <updated>{time}</updated>\n\
             \x20   <summary>{}</summary>\n\
             \x20 </entry>\n",
            escape(&page.front.title),
            escape(summary),
            time = timestamp(&page.front.date),
        ));
    }
    xml.push_str("</feed>\n");
    xml
}

/// `robots.txt`: everything may be crawled; the sitemap is named.
pub fn robots(config: &Config) -> String {
    format!(
        "User-agent: *\nAllow: /\nSitemap: {}{SITEMAP}\n",
        config.base_url
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::page::read_page;

    fn config() -> Config {
        Config {
            title: "T & co".into(),
            description: "D".into(),
            base_url: "https://u.github.io/repo/".into(),
            base_path: "/repo/".into(),
            language: "en".into(),
            search: true,
            author: String::new(),
            output: "public".into(),
            output_from: crate::site::config::OutputFrom::Default,
            smart_punctuation: true,
            footer: None,
            external_skip: Vec::new(),
        }
    }

    fn page(url: &str, front: &str) -> Page {
        read_page(
            format!("content/{url}.md"),
            format!("---\n{front}\n---\nBody\n"),
            url.to_string(),
        )
        .unwrap()
    }

    #[test]
    fn the_feed_is_dated_by_its_newest_page() {
        let pages = [
            page("", "title: Home"),
            page("a/", "title: A\ndate: 2026-01-02\ndescription: About a"),
            page("b/", "title: B\ndate: 2026-03-04"),
        ];
        let xml = atom(&config(), &pages);
        assert!(xml.contains("<title>T &amp; co</title>"));
        assert!(xml.contains("  <updated>2026-03-04T00:00:00Z</updated>\n"));
        assert!(xml.contains("<author><name>T &amp; co</name></author>"));
        let b = xml.find("<id>https://u.github.io/repo/b/</id>").unwrap();
        let a = xml.find("<id>https://u.github.io/repo/a/</id>").unwrap();
        assert!(b < a, "newest first");
        assert!(xml.contains("<summary>About a</summary>"));
        assert!(xml.contains("<summary>B</summary>"));
        assert_eq!(xml.matches("<entry>").count(), 2);
        let map = sitemap(&config(), &pages);
        assert!(map.contains("<loc>https://u.github.io/repo/</loc>"));
        assert!(map.contains("<lastmod>2026-01-02</lastmod>"));
        assert_eq!(
            robots(&config()),
            "User-agent: *\nAllow: /\nSitemap: https://u.github.io/repo/sitemap.xml\n"
        );
    }
}
