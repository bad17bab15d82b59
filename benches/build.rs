//! Whole-site builds: this repository's own site (with its simulations cached, as after
//! a prose edit, and from scratch), and a generated site of 1,000 plain Markdown pages.
//!
//! Run with `cargo bench --bench build`.

mod common;

use common::copy_tree;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use retrylab::site::memo::Memo;
use retrylab::site::{self, Options};

fn options(root: &Path, output: &Path) -> Options {
    Options {
        root: root.to_path_buf(),
        output: Some(output.to_path_buf()),
        base_url: None,
        drafts: false,
        progress: false,
    }
}

/// A site of `n` pages of ordinary prose: headings, lists, links, code.
fn plain_site(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("site.yaml"), "title: Plain\n").unwrap();
    std::fs::create_dir_all(root.join("content")).unwrap();
    for i in 0..n {
        let text = format!(
            "---\ntitle: Page {i}\ndescription: Page number {i}.\nweight: {i}\n---\n\n\
             ## Introduction\n\nSome *prose* with a [link](page-{next}.md) and `code`.\n\n\
             - one\n- two\n- three\n\n## Details\n\n```rust\nfn main() {{ println!(\"{i}\"); }}\n```\n\n\
             > A quote to close.\n",
            next = (i + 1) % n
        );
        std::fs::write(root.join(format!("content/page-{i}.md")), text).unwrap();
    }
    dir
}

fn builds(c: &mut Criterion) {
    let out = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut group = c.benchmark_group("build");
    group.sample_size(10);

    // A copy of the repository's site, so its cache can be removed between runs.
    let copy = tempfile::tempdir().unwrap();
    for dir in ["content", "scenarios", "templates", "static"] {
        copy_tree(&repo.join(dir), &copy.path().join(dir));
    }
    std::fs::copy(repo.join("site.yaml"), copy.path().join("site.yaml")).unwrap();
    let own = options(copy.path(), &out.path().join("own"));
    site::build(&own).unwrap();
    group.bench_function("this site, simulations cached", |b| {
        b.iter(|| site::build(&own).unwrap())
    });
    group.bench_function("this site, from scratch", |b| {
        b.iter(|| {
            let _ = std::fs::remove_dir_all(copy.path().join(site::cache::FOLDER));
            site::build(&own).unwrap()
        })
    });

    // The same without the search index (`search: false`), to tell what it costs.
    let yaml = std::fs::read_to_string(copy.path().join("site.yaml")).unwrap();
    std::fs::write(
        copy.path().join("site.yaml"),
        format!("{yaml}\nsearch: false\n"),
    )
    .unwrap();
    group.bench_function("this site, from scratch, without search", |b| {
        b.iter(|| {
            let _ = std::fs::remove_dir_all(copy.path().join(site::cache::FOLDER));
            site::build(&own).unwrap()
        })
    });
    std::fs::write(copy.path().join("site.yaml"), &yaml).unwrap();

    // What `serve` does after a prose edit: the same build, with the memo of the last.
    let page = copy.path().join("content/why-waiting-longer.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let mut memo = Memo::for_server();
    site::build_with(&own, &mut memo).unwrap();
    let mut edits = 0u64;
    group.bench_function("this site, a prose edit with serve's memo", |b| {
        b.iter(|| {
            edits += 1;
            std::fs::write(&page, format!("{text}\nEdit {edits}.\n")).unwrap();
            site::build_with(&own, &mut memo).unwrap()
        })
    });
    drop(memo);

    let plain = plain_site(1000);
    let plain_options = options(plain.path(), &out.path().join("plain"));
    group.throughput(Throughput::Elements(1000));
    group.bench_function("1,000 plain pages", |b| {
        b.iter(|| site::build(&plain_options).unwrap())
    });
    std::fs::write(
        plain.path().join("site.yaml"),
        "title: Plain\nsearch: false\n",
    )
    .unwrap();
    group.bench_function("1,000 plain pages, without search", |b| {
        b.iter(|| site::build(&plain_options).unwrap())
    });
    group.finish();
}

criterion_group!(benches, builds);
criterion_main!(benches);
