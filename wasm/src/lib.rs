//! retrylab's engine as a WebAssembly module, with a hand-written interface of five
//! functions; `playground.js` is its loader.
//!
//! Strings cross as UTF-8 bytes in the module's memory. The host asks for a buffer with
//! `alloc`, writes the scenario's YAML into it and calls `run`, `page` or `settings`, which free
//! the input and return the output's address and length packed into one `u64`
//! (address in the high 32 bits); the host reads the JSON and frees it with `dealloc`.

use std::ptr;

/// A buffer of `len` bytes for the host to write into.
#[unsafe(no_mangle)]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast()
}

/// Frees a buffer from `alloc`, `run`, `page` or `settings`.
///
/// # Safety
/// `ptr` and `len` must describe exactly one such buffer, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
    // SAFETY: the caller passes back a boxed slice of exactly this length.
    drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(ptr, len)) });
}

/// Runs the scenario in the buffer: `retrylab::playground::run`.
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn run(ptr: *mut u8, len: usize) -> u64 {
    // SAFETY: as documented.
    unsafe { answer(ptr, len, retrylab::playground::run) }
}

/// Runs the scenario in the buffer for the page: `retrylab::playground::page`.
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn page(ptr: *mut u8, len: usize) -> u64 {
    // SAFETY: as documented.
    unsafe { answer(ptr, len, retrylab::playground::page) }
}

/// Reads the scenario in the buffer: `retrylab::playground::settings`.
///
/// # Safety
/// `ptr` and `len` must describe a buffer from `alloc`; it is freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn settings(ptr: *mut u8, len: usize) -> u64 {
    // SAFETY: as documented.
    unsafe { answer(ptr, len, retrylab::playground::settings) }
}

/// Reads the input, frees it, applies `f` and hands the output's buffer to the host.
unsafe fn answer(ptr: *mut u8, len: usize, f: fn(&str) -> String) -> u64 {
    // SAFETY: the caller's buffer from `alloc`, freed only here.
    let input = unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(ptr, len)) };
    let output = match std::str::from_utf8(&input) {
        Ok(text) => f(text),
        Err(_) => r#"{"errors":[{"line":1,"column":1,"width":1,"message":"the scenario is not UTF-8 text","help":null}]}"#.to_string(),
    };
    drop(input);
    let output = output.into_bytes().into_boxed_slice();
    let len = output.len() as u64;
    let ptr = Box::into_raw(output).cast::<u8>() as usize as u64;
    (ptr << 32) | len
}
