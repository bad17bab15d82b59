//! A line on stderr while something long runs, erased when done: it names the work at
//! once and, from the first second on, counts the seconds, so that a long simulation
//! never looks like a hung command.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The line, shown while this lives.
pub struct Progress(Option<(Sender<()>, JoinHandle<()>)>);

impl Progress {
    /// Shows `line` until the value is dropped, when `enabled` (stderr is a terminal
    /// and there is work to wait for).
    pub fn start(enabled: bool, line: String) -> Progress {
        if !enabled {
            return Progress(None);
        }
        eprint!("{line}\r");
        let (stop, stopped) = mpsc::channel::<()>();
        let ticker = std::thread::spawn(move || {
            let started = Instant::now();
            // Until the sender is dropped (or sends): a line a second meanwhile.
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(Duration::from_secs(1))
            {
                eprint!("\r\x1b[2K{line} {} s\r", started.elapsed().as_secs());
            }
        });
        Progress(Some((stop, ticker)))
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some((stop, ticker)) = self.0.take() {
            drop(stop);
            // The ticker only prints; if it panicked there is nothing left to clear up.
            let _ = ticker.join();
            // Clears the line, so that what follows prints on a clean one.
            eprint!("\r\x1b[2K");
        }
    }
}
