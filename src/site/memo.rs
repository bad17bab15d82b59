//! What `serve` keeps between one build and the next, so that a prose edit rebuilds in
//! a few milliseconds: each directive as read, each page's scan, each scenario's
//! results, each directive's figure, the compiled templates, the highlighted code
//! blocks, each page's rendered body and the site the build replaced, which the next
//! build is written into (see [`super::output`]).
//!
//! Everything here is found by the whole of what made it, never by a name or a time: a
//! directive as read by its kind and text (but a live block, which reads a file of its
//! own), a page's directives, code and references as found by its body, results by the
//! scenario's cache key (every field of the scenario and the engine's version), a
//! figure by its directive's kind and text (which determine its scenarios, hence its
//! results; a live block's by every field of it as read) with the playground's address
//! and the base path, the templates by their texts, highlighted code by its text and
//! language, a page's rendered body by its body and everything else it was rendered
//! from; a file of the replaced site stays in the next only where it is the last
//! site's very file and holds the bytes wanted. So a build with a memo writes exactly
//! the bytes a build without one writes; `build` starts from an empty memo each time.
//! After each build the memo keeps only what that build used, so a long `serve`
//! session holds one site's worth.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::output::Spare;
use super::templates::Templates;
use crate::engine::ScenarioResult;

/// What one build leaves for the next (see the module's documentation).
#[derive(Default)]
pub struct Memo {
    /// Results by scenario cache key.
    pub(super) results: HashMap<String, ScenarioResult>,
    /// Directives as read, by their kind and text, and each page's scan, by its body.
    pub(super) reads: super::parts::Reads,
    /// Each figure's HTML, by its directive's kind and text.
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
    /// Whether a build keeps the site it replaced to write the next one into (a
    /// server's memo), rather than removing it.
    pub(super) keeps_spare: bool,
    /// That site, shared with whatever removes it when the server stops (see
    /// [`Memo::spare_remover`]).
    pub(super) spare: Arc<Mutex<Option<Spare>>>,
}

impl Memo {
    /// An empty memo: the next build reads and draws everything.
    pub fn new() -> Memo {
        Memo::default()
    }

    /// An empty memo for a server: each page's rendered body is kept, and the site a
    /// build replaces, to write the next build into.
    pub fn for_server() -> Memo {
        let mut memo = Memo::default();
        memo.keeps_spare = true;
        memo.keeps_pages = true;
        memo
    }

    /// Keeps `spare` for the next build.
    pub(super) fn keep_spare(&self, spare: Option<Spare>) {
        *self.spare.lock().unwrap_or_else(PoisonError::into_inner) = spare;
    }

    /// The site the last build replaced, if kept: what [`super::build_with`] may not
    /// remove as a leftover.
    pub(super) fn with_spare<T>(&self, work: impl FnOnce(Option<&Spare>) -> T) -> T {
        work(
            self.spare
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_ref(),
        )
    }

    /// What removes the site the last build replaced, for a server that is stopped
    /// (by Ctrl+C, say) with this memo in use. While a build is writing it removes
    /// nothing: that build's folder is a leftover the next build removes.
    pub fn spare_remover(&self) -> impl Fn() + Send + 'static {
        let spare = Arc::clone(&self.spare);
        move || {
            if let Some(spare) = take(&spare) {
                spare.remove();
            }
        }
    }
}

/// Takes the site the last build replaced from a memo's `spare`, for the next to
/// write into.
pub(super) fn take(spare: &Mutex<Option<Spare>>) -> Option<Spare> {
    spare.lock().unwrap_or_else(PoisonError::into_inner).take()
}

impl Drop for Memo {
    /// The site the last build replaced goes with the memo.
    fn drop(&mut self) {
        if let Some(spare) = take(&self.spare) {
            spare.remove();
        }
    }
}
