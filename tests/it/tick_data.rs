//! The chart's data of the site's own figures, as the build writes it (a CSV file per
//! figure in `ticks/`), against `retrylab sim PAGE.md#ID --json --lanes`: for one figure
//! of every page, each row's calls are the lanes' calls of its ticks, strategy by
//! strategy, and every tick a row leaves out has no call in any lane.

use serde_json::Value;

use crate::util::{root, run};

/// The count in a row's cell, or a tick's in a lane.
fn lane(strategy: &Value, key: &str) -> Vec<u64> {
    strategy["lanes"][key]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_u64().unwrap()).collect())
        .unwrap_or_default()
}

#[test]
fn each_pages_chart_data_is_the_lanes_of_retrylab_sim() {
    let out = tempfile::tempdir().unwrap();
    let public = out.path().join("public");
    let site = root();
    let (code, _, stderr) = run(&[
        "build",
        "--root",
        site.to_str().unwrap(),
        "-o",
        public.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let mut pages: Vec<_> = std::fs::read_dir(public.join("ticks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    pages.sort();
    assert!(pages.len() >= 4, "{pages:?}");
    for page in &pages {
        let mut csvs: Vec<String> = std::fs::read_dir(public.join("ticks").join(page))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            // A fleet's replicas' data, beside its figure's, is tested in `fleet`.
            .filter(|name| !name.ends_with("-replicas.csv"))
            .collect();
        csvs.sort();
        let id = csvs[0].strip_suffix(".csv").unwrap();
        let csv = std::fs::read_to_string(public.join("ticks").join(page).join(&csvs[0])).unwrap();
        // The figure's disclosure says how many ticks a row holds.
        let html = std::fs::read_to_string(public.join(page).join("index.html")).unwrap();
        let caption_at = html
            .find(&format!("data-id=\"{id}\" data-caption=\""))
            .unwrap_or_else(|| panic!("{page}: no data disclosure for {id}"));
        let caption = &html[caption_at..caption_at + html[caption_at..].find("\">").unwrap()];
        let bin: usize = caption
            .split_once(" (")
            .and_then(|(_, rest)| rest.split_once(" ticks, each a bar"))
            .map_or(1, |(n, _)| n.replace(',', "").parse().unwrap());

        let (code, json, stderr) = run(&[
            "sim",
            &format!(
                "{}#{id}",
                site.join("content").join(format!("{page}.md")).display()
            ),
            "--json",
            "--lanes",
        ]);
        assert_eq!(code, 0, "{page}#{id}: {stderr}");
        let json: Value = serde_json::from_str(&json).unwrap();
        let strategies = json["strategies"].as_array().unwrap();
        let mut lines = csv.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        // Each strategy's columns, from its `served` to the next one's.
        let per = (head.iter().skip(2).position(|h| h.ends_with(" served")))
            .map_or(head.len() - 1, |i| i + 1);
        assert_eq!(head[0], "time (s)");
        assert_eq!(
            head.len(),
            1 + per * strategies.len(),
            "{page}#{id}: {head:?}"
        );
        let lanes: Vec<[Vec<u64>; 3]> = strategies
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let name = s["strategy"].as_str().unwrap();
                assert_eq!(head[1 + per * i], format!("{name} served"));
                assert_eq!(head[2 + per * i], format!("{name} turned away"));
                [
                    lane(s, "served"),
                    lane(s, "rejected"),
                    lane(s, "failed_fast"),
                ]
            })
            .collect();
        let tick_s = strategies[0]["lanes"]["tick_s"].as_f64().unwrap();
        let sum = |l: &Vec<u64>, from: usize, to: usize| -> u64 {
            l.iter().skip(from).take(to - from).sum()
        };
        let mut next = 0;
        let mut rows = 0;
        for line in lines {
            let cells: Vec<&str> = line.split(',').collect();
            let start = (cells[0].parse::<f64>().unwrap() / tick_s).round() as usize;
            assert_eq!(start % bin, 0, "{page}#{id}: {line}");
            // The ticks left out before this row saw no call.
            for lane in lanes.iter().flatten() {
                assert_eq!(sum(lane, next, start), 0, "{page}#{id}: before {line}");
            }
            for (i, [served, rejected, failed_fast]) in lanes.iter().enumerate() {
                let want = [
                    sum(served, start, start + bin),
                    sum(rejected, start, start + bin),
                    sum(failed_fast, start, start + bin),
                ];
                for k in 0..per {
                    let column = head[1 + per * i + k];
                    let kinds = [" served", " turned away", " failed fast"];
                    // Counts only: a capacity is no sum of a lane of calls.
                    let Some(kind) = kinds.iter().position(|kind| column.ends_with(kind)) else {
                        continue;
                    };
                    let got: u64 = cells[1 + per * i + k].parse().unwrap();
                    assert_eq!(got, want[kind], "{page}#{id}: {line}, column {column}");
                }
            }
            next = start + bin;
            rows += 1;
        }
        assert!(rows > 0, "{page}#{id}: no rows");
    }
}
