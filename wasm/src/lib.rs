//! retrylab's engine as a WebAssembly module, with a hand-written interface of nine
//! functions; `playground.js` is its loader.
//!
//! Strings cross as UTF-8 bytes in the module's memory. The host asks for a buffer with
//! `alloc`, writes the scenario's YAML into it and calls `run`, `page` or `settings`, which free
//! the input and return the output's address and length packed into one `u64`
//! (address in the high 32 bits); the host reads the JSON and frees it with `dealloc`.
//! `page` takes three texts in its buffer, one after the other: the figure's window,
//! its caption and the YAML, with the lengths of the first two in bytes.
//!
//! The playground's page splits a scenario's runs among workers, one per core: `jobs`
//! says how many runs there are to split, each worker's module runs its share with
//! `run_jobs` and hands back their totals as bytes, and the page's own module draws
//! the page from them all with `page_of_runs`, the same JSON as `page`.

use std::ptr;

/// A buffer of `len` bytes for the host to write into.
#[unsafe(no_mangle)]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast()
}

/// Frees a buffer from `alloc` or one that a function of this module handed back.
///
/// # Safety
/// `ptr` and `len` must describe exactly one such buffer, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
    // SAFETY: the caller passes back a boxed slice of exactly this length.
    drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(ptr, len)) });
}

/// Runs the scenario in the buffer: `retrylab::wasm_api::run`.
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn run(ptr: *mut u8, len: usize) -> u64 {
    // SAFETY: as documented.
    unsafe { answer(ptr, len, retrylab::wasm_api::run) }
}

/// Runs the scenario in the buffer for the page: `retrylab::wasm_api::page`. The
/// buffer holds the window (`window_len` bytes), the caption (`caption_len` bytes) and
/// the YAML, in that order.
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn page(
    ptr: *mut u8,
    len: usize,
    window_len: usize,
    caption_len: usize,
) -> u64 {
    // SAFETY: as documented.
    unsafe {
        answer(ptr, len, |text| {
            match split(text, window_len, caption_len) {
                Some((window, caption, yaml)) => retrylab::wasm_api::page(yaml, window, caption),
                None => NOT_UTF8.to_string(),
            }
        })
    }
}

/// Reruns an explorable figure: `retrylab::wasm_api::explore`. The buffer holds the
/// window, the caption, the knobs and the asks (each of the length given) and the YAML,
/// in that order.
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn explore(
    ptr: *mut u8,
    len: usize,
    window_len: usize,
    caption_len: usize,
    knobs_len: usize,
    asks_len: usize,
) -> u64 {
    // SAFETY: as documented.
    unsafe {
        answer(ptr, len, |text| {
            // Split where the host's lengths say, as for `page`.
            let mut parts = [""; 4];
            let mut rest = text;
            for (part, len) in parts
                .iter_mut()
                .zip([window_len, caption_len, knobs_len, asks_len])
            {
                match rest.split_at_checked(len) {
                    Some((head, tail)) => (*part, rest) = (head, tail),
                    None => return NOT_UTF8.to_string(),
                }
            }
            let [window, caption, knobs, asks] = parts;
            retrylab::wasm_api::explore(rest, window, caption, knobs, asks)
        })
    }
}

/// How many runs of the scenario in the buffer the page may split among its workers:
/// `retrylab::wasm_api::jobs` (0 for an input that is not UTF-8).
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobs(ptr: *mut u8, len: usize) -> usize {
    // SAFETY: the caller's buffer from `alloc`, freed when `input` drops.
    let input = unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(ptr, len)) };
    std::str::from_utf8(&input).map_or(0, retrylab::wasm_api::jobs)
}

/// Runs jobs `from..to` of the scenario in the buffer: `retrylab::wasm_api::run_jobs`,
/// its words as bytes, little-endian.
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn run_jobs(ptr: *mut u8, len: usize, from: usize, to: usize) -> u64 {
    // SAFETY: as documented.
    unsafe {
        answer_bytes(ptr, len, |input| {
            let mut bytes = Vec::new();
            if let Ok(yaml) = std::str::from_utf8(input) {
                for word in retrylab::wasm_api::run_jobs(yaml, from..to) {
                    bytes.extend_from_slice(&word.to_le_bytes());
                }
            }
            bytes
        })
    }
}

/// Draws the page of the scenario from its runs: `retrylab::wasm_api::page_of_runs`.
/// The buffer holds the window, the caption and the YAML (each of the length given),
/// then the runs as `run_jobs` gave them, one after the other.
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn page_of_runs(
    ptr: *mut u8,
    len: usize,
    window_len: usize,
    caption_len: usize,
    yaml_len: usize,
) -> u64 {
    // SAFETY: as documented.
    unsafe {
        answer_bytes(ptr, len, |input| {
            let text_len = window_len
                .saturating_add(caption_len)
                .saturating_add(yaml_len);
            let Some((text, runs)) = input.split_at_checked(text_len) else {
                return NOT_UTF8.into();
            };
            let words: Vec<u64> = (runs.chunks_exact(8))
                .map(|word| u64::from_le_bytes(word.try_into().unwrap_or_default()))
                .collect();
            let parts = std::str::from_utf8(text).ok();
            match parts.and_then(|text| split(text, window_len, caption_len)) {
                Some((window, caption, yaml)) => {
                    retrylab::wasm_api::page_of_runs(yaml, window, caption, &words)
                }
                None => NOT_UTF8.to_string(),
            }
            .into_bytes()
        })
    }
}

/// Reads the scenario in the buffer: `retrylab::wasm_api::settings`.
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn settings(ptr: *mut u8, len: usize) -> u64 {
    // SAFETY: as documented.
    unsafe { answer(ptr, len, retrylab::wasm_api::settings) }
}

/// The figure's window, its caption and the YAML of `text`, split where the host's
/// lengths say; `None` for lengths that do not fall between characters, which makes a
/// text that is not UTF-8, as the errors say.
fn split(text: &str, window_len: usize, caption_len: usize) -> Option<(&str, &str, &str)> {
    let (window, rest) = text.split_at_checked(window_len)?;
    let (caption, yaml) = rest.split_at_checked(caption_len)?;
    Some((window, caption, yaml))
}

/// The errors JSON for an input that is not UTF-8 text.
const NOT_UTF8: &str = r#"{"errors":[{"line":1,"column":1,"width":1,"message":"the scenario is not UTF-8 text","help":null}]}"#;

/// Reads the input, frees it, applies `f` and hands the output's buffer to the host.
unsafe fn answer(ptr: *mut u8, len: usize, f: impl FnOnce(&str) -> String) -> u64 {
    // SAFETY: as documented for the callers.
    unsafe {
        answer_bytes(ptr, len, |input| {
            match std::str::from_utf8(input) {
                Ok(text) => f(text),
                Err(_) => NOT_UTF8.to_string(),
            }
            .into_bytes()
        })
    }
}

/// [`answer`] for an input and an output that are bytes.
unsafe fn answer_bytes(ptr: *mut u8, len: usize, f: impl FnOnce(&[u8]) -> Vec<u8>) -> u64 {
    // SAFETY: the caller's buffer from `alloc`, freed only here.
    let input = unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(ptr, len)) };
    let output = f(&input);
    drop(input);
    let output = output.into_boxed_slice();
    let len = output.len() as u64;
    let ptr = Box::into_raw(output).cast::<u8>() as usize as u64;
    (ptr << 32) | len
}
