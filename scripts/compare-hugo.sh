#!/usr/bin/env bash
# Builds a site of 1,000 plain pages with retrylab and with Hugo, side by side, and
# prints the median wall time of each over RUNS builds (default 7), alternating the
# two. The pages are the ones `cargo bench --bench build` generates: headings, a list,
# a link to the next page, a Rust code block (highlighted by both), a quote. Hugo gets
# minimal templates of its own (a page and a list); both write a sitemap and a feed.
# retrylab is timed with its search index (the default) and without (`search: false`),
# since Hugo writes none. Needs `hugo` on the PATH; builds retrylab in release mode first.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-7}
pages=${PAGES:-1000}
command -v hugo >/dev/null || { echo "error: hugo is not on the PATH"; exit 1; }
cargo build --release --quiet
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

mkdir -p "$work/r/content" "$work/h/content" "$work/h/layouts/_default"
printf 'title: Plain\n' > "$work/r/site.yaml"
printf 'title: Plain\nsearch: false\n' > "$work/r-off.yaml"
printf 'baseURL = "/"\ntitle = "Plain"\ndisableKinds = ["taxonomy", "term"]\n' > "$work/h/hugo.toml"
cat > "$work/h/layouts/_default/baseof.html" <<'HTML'
<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><main>{{ block "main" . }}{{ end }}</main></body></html>
HTML
cat > "$work/h/layouts/_default/single.html" <<'HTML'
{{ define "main" }}<h1>{{ .Title }}</h1><nav>{{ .TableOfContents }}</nav>{{ .Content }}{{ end }}
HTML
cat > "$work/h/layouts/_default/list.html" <<'HTML'
{{ define "main" }}<ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}
HTML
for ((i = 0; i < pages; i++)); do
  next=$(( (i + 1) % pages ))
  body="## Introduction

Some *prose* with a [link](page-$next.md) and \`code\`.

- one
- two
- three

## Details

\`\`\`rust
fn main() { println!(\"$i\"); }
\`\`\`

> A quote to close."
  printf -- '---\ntitle: Page %s\ndescription: Page number %s.\nweight: %s\n---\n\n%s\n' "$i" "$i" "$i" "$body" > "$work/r/content/page-$i.md"
  # Hugo links pages by `ref`; a plain relative address is the same page there.
  printf -- '---\ntitle: Page %s\ndescription: Page number %s.\nweight: %s\n---\n\n%s\n' "$i" "$i" "$i" "${body/page-$next.md/../page-$next/}" > "$work/h/content/page-$i.md"
done

time_of() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
: > "$work/r.times"; : > "$work/r-off.times"; : > "$work/h.times"
# The site without search: the same pages, its own folder (a build's cache is per site).
cp -R "$work/r" "$work/r-off-site" && cp "$work/r-off.yaml" "$work/r-off-site/site.yaml"
for ((k = 0; k < runs; k++)); do
  time_of target/release/retrylab build --root "$work/r" -o "$work/r-out" >> "$work/r.times"
  time_of target/release/retrylab build --root "$work/r-off-site" -o "$work/r-off-out" >> "$work/r-off.times"
  time_of hugo --source "$work/h" --destination "$work/h-out" --quiet >> "$work/h.times"
done
r=$(median < "$work/r.times"); off=$(median < "$work/r-off.times"); h=$(median < "$work/h.times")
echo "$pages plain pages, median of $runs builds: retrylab $r ms with search ($off ms without), Hugo $h ms ($(hugo version | cut -d' ' -f2)); ratio $(awk -v r="$r" -v h="$h" 'BEGIN {printf "%.2f", r / h}') ($(awk -v r="$off" -v h="$h" 'BEGIN {printf "%.2f", r / h}') without search)"
