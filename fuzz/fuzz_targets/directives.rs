//! Directive extraction on any Markdown: the scan, each directive's reader, the inline
//! references and their check against the scenarios found, and every error printed
//! with its place, without a panic.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use retrylab::diag::{Diagnostic, LineIndex};
use retrylab::directive::{self, Kind, reference, schedule, sweep};
use retrylab::site::docs;

fuzz_target!(|text: &str| {
    let scan = directive::scan(text);
    let index = LineIndex::new(text);
    let mut scenarios = BTreeMap::new();
    for found in &scan.directives {
        assert!(text.is_char_boundary(found.body_start));
        let origin = index.pos(text, found.body_start);
        let errors = match found.kind {
            Kind::Sim => directive::read_sim(&found.body)
                .map(|sim| {
                    scenarios.insert(sim.scenario.id.clone(), sim.scenario);
                })
                .err(),
            Kind::Sweep => sweep::read_sweep(&found.body).err(),
            Kind::Schedule => schedule::read_schedule(&found.body).err(),
            Kind::ReferenceTable => {
                let _ = docs::table_named(found.body.trim());
                None
            }
            Kind::Live => directive::live::read_live(&found.body).err(),
        };
        let _ = directive::id_of(&found.body);
        for e in errors.into_iter().flatten() {
            let _ = Diagnostic::from_scenario("a.md", text, origin, e).to_string();
        }
    }
    for found in reference::find(text, &scan.code) {
        let checked = found.and_then(|raw| reference::check(&raw, &scenarios));
        if let Err(e) = checked {
            assert!(text.get(e.range.clone()).is_some(), "{:?}", e.range);
            let pos = index.pos(text, e.range.start);
            let width = text[e.range.clone()].chars().count().max(1);
            let _ = Diagnostic::new("a.md", text, pos, width, e.message).to_string();
        }
    }
});
