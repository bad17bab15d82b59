//! What `serve` keeps between one build and the next, so that a prose edit rebuilds in
//! a few milliseconds: each directive as read, each page's scan, each scenario's
//! results, each directive's figure, the compiled templates, the highlighted code
//! blocks and each page's rendered body.
//!
//! Everything here is found by the whole of what made it, never by a name or a time: a
//! directive as read by its kind and text (but a live block, which reads a file of its
//! own), a page's directives, code and references as found by its body, results by the
//! scenario's cache key (every field of the scenario and the engine's version), a
//! figure by every field of its directive as read (which determine its scenarios, hence
//! its results) and the playground's address, the templates by their texts, highlighted
//! code by its text and language, a page's rendered body by its body and everything
//! else it was rendered from. So a build with a memo writes exactly the bytes a build
//! without one writes; `build` starts from an empty memo each time. After each build
//! the memo keeps only what that build used, so a long `serve` session holds one site's
//! worth.

use std::collections::HashMap;
use std::thread::JoinHandle;

use super::templates::Templates;
use crate::engine::ScenarioResult;

/// What one build leaves for the next (see the module's documentation).
#[derive(Default)]
pub struct Memo {
    /// Results by scenario cache key.
    pub(super) results: HashMap<String, ScenarioResult>,
    /// Directives as read, by their kind and text, and each page's scan, by its body.
    pub(super) reads: super::parts::Reads,
    /// A figure's HTML by its directive as read and the playground's address.
    pub(super) figures: super::figures::Drawn,
    /// The templates' texts and what they compiled to.
    pub(super) templates: Option<(Vec<(String, String)>, Templates)>,
    /// Code blocks' HTML by their text and language.
    pub(super) highlights: super::highlight::Kept,
    /// Each page's rendered body, by its file, with everything it was rendered from;
    /// kept only by a server's memo, since keeping costs a one-off build a copy of
    /// every page's inputs.
    pub(super) pages: HashMap<String, super::render::Remembered>,
    /// Whether builds keep each page's rendered body for the next (`serve`'s memo).
    pub(super) keeps_pages: bool,
    /// Whether the site a build replaces is removed on a thread of its own, after the
    /// new one is in place, rather than before the build returns.
    pub(super) tidy_after: bool,
    /// That thread, which the next build waits for before it starts.
    pub(super) tidying: Option<JoinHandle<()>>,
}

impl Memo {
    /// An empty memo: the next build reads and draws everything.
    pub fn new() -> Memo {
        Memo::default()
    }

    /// An empty memo for a server: the site a build replaces is removed after the new
    /// one is in place, on a thread of its own, and each page's rendered body is kept.
    pub fn tidying_after() -> Memo {
        let mut memo = Memo::default();
        memo.tidy_after = true;
        memo.keeps_pages = true;
        memo
    }

    /// Waits until the site the last build replaced is removed.
    pub(super) fn tidied(&mut self) {
        if let Some(thread) = self.tidying.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Memo {
    /// A memo is dropped only once the site it last replaced is removed, so that no
    /// build after it meets that removal half done.
    fn drop(&mut self) {
        self.tidied();
    }
}
