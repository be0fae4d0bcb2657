//! The `SIGBUS` handler that turns a file shrinking under a [`FileMap`](super::FileMap)
//! into an error, and the table of maps it guards.
//!
//! The handler runs inside a signal, so it may only read atomics and make system calls:
//! the table is a fixed array of slots of atomics, each slot one map's address range and
//! whether the file under it shrank. A map takes a free slot when it is made and gives it
//! back before it is unmapped, so an address the handler finds in a slot is always inside
//! a live map (the map's owner cannot be dropped while a thread reads from it). With every
//! slot taken, a new file is read into memory instead of mapped.

#[cfg(target_os = "linux")]
pub(super) use linux::{GuardedMap, SharedMap};

#[cfg(not(target_os = "linux"))]
pub(super) use elsewhere::{GuardedMap, SharedMap};

#[cfg(target_os = "linux")]
mod linux {
    use std::fs::File;
    use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
    use std::sync::{Arc, OnceLock};

    use crate::error::Result;

    /// How many maps can be guarded at once; beyond that, files are read.
    const SLOTS: usize = 512;

    const FREE: u8 = 0;
    const TAKEN: u8 = 1;
    const GUARDED: u8 = 2;

    /// One map's address range, page-aligned, and whether a page of it went missing.
    struct Slot {
        state: AtomicU8,
        start: AtomicUsize,
        end: AtomicUsize,
        shrank: AtomicBool,
    }

    #[allow(clippy::declare_interior_mutable_const)] // the template of each slot
    const EMPTY: Slot = Slot {
        state: AtomicU8::new(FREE),
        start: AtomicUsize::new(0),
        end: AtomicUsize::new(0),
        shrank: AtomicBool::new(false),
    };

    static TABLE: [Slot; SLOTS] = [EMPTY; SLOTS];

    /// The page size, read once before the handler is installed.
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    /// The `SIGBUS` action that was there before ours, which faults outside our maps go to.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

    /// Whether the handler is in place, decided once (installing it can fail, then
    /// nothing is mapped).
    static INSTALLED: OnceLock<bool> = OnceLock::new();

    /// A read-only map of a file, registered with the handler while it lives.
    pub struct GuardedMap {
        // Unmapped when the fields drop, after `Drop::drop` has given the slot back.
        map: memmap2::Mmap,
        slot: usize,
        /// The file, to ask its length: a truncation that no read has run into yet.
        file: File,
    }

    impl GuardedMap {
        /// A guarded map of the first `len` bytes of `file`; `None` if the handler could
        /// not be installed or every slot is taken.
        pub fn new(file: &File, len: usize) -> Result<Option<Self>> {
            if !install() {
                return Ok(None);
            }
            let file = file.try_clone()?;
            let Some(slot) = take_slot() else {
                return Ok(None);
            };
            // SAFETY: a read-only map, which no code here writes through. Another process
            // may change or truncate the file under it: changed bytes are what any reader
            // of a shared file sees (and are validated like any input), and the slot taken
            // above routes the fault a truncation raises to the handler, which replaces
            // the missing pages (see the module notes).
            let map = match unsafe { memmap2::MmapOptions::new().len(len).map(&file) } {
                Ok(map) => map,
                Err(e) => {
                    TABLE[slot].state.store(FREE, Ordering::Release);
                    return Err(e.into());
                }
            };
            let page = PAGE.load(Ordering::Relaxed);
            let start = map.as_ptr() as usize;
            let end = (start + len).next_multiple_of(page);
            let entry = &TABLE[slot];
            entry.start.store(start, Ordering::Relaxed);
            entry.end.store(end, Ordering::Relaxed);
            entry.shrank.store(false, Ordering::Relaxed);
            entry.state.store(GUARDED, Ordering::Release);
            Ok(Some(GuardedMap { map, slot, file }))
        }

        /// Whether the file shrank: a read of the map found a page missing, or the file is
        /// now shorter than the map (pages nobody has read yet are gone too).
        pub fn shrank(&self) -> bool {
            TABLE[self.slot].shrank.load(Ordering::Acquire)
                || self
                    .file
                    .metadata()
                    .is_ok_and(|m| m.len() < self.map.len() as u64)
        }
    }

    impl Drop for GuardedMap {
        fn drop(&mut self) {
            // Out of the table before the pages are unmapped, so that the handler never
            // replaces pages of a range the kernel may give to someone else.
            let entry = &TABLE[self.slot];
            entry.state.store(TAKEN, Ordering::Release);
            entry.start.store(0, Ordering::Relaxed);
            entry.end.store(0, Ordering::Relaxed);
            entry.state.store(FREE, Ordering::Release);
        }
    }

    /// A shared [`GuardedMap`] as the owner of a buffer's bytes.
    pub struct SharedMap(pub Arc<GuardedMap>);

    impl AsRef<[u8]> for SharedMap {
        fn as_ref(&self) -> &[u8] {
            &self.0.map
        }
    }

    /// A free slot, now taken; `None` if there is none.
    fn take_slot() -> Option<usize> {
        TABLE.iter().position(|slot| {
            slot.state
                .compare_exchange(FREE, TAKEN, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        })
    }

    /// Installs the handler once; whether it is in place.
    fn install() -> bool {
        *INSTALLED.get_or_init(|| {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if page > 0 {
                PAGE.store(page as usize, Ordering::Relaxed);
            }
            // SAFETY: zeroed is a valid `sigaction` for the kernel to fill in.
            let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: a query only (no new action); `previous` is written by the call.
            if unsafe { libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) } != 0 {
                return false;
            }
            // Kept before ours is in place, so that the handler always has it.
            let previous = PREVIOUS.get_or_init(|| previous);
            // SAFETY: zeroed is a valid `sigaction` (no handler, empty mask, no flags).
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            // SAFETY: `action` is fully initialised and its handler has the SA_SIGINFO
            // signature.
            let installed = unsafe {
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut())
            } == 0;
            if !installed {
                // SAFETY: puts back the action read above.
                unsafe { libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut()) };
            }
            installed
        })
    }

    /// The handler: a fault inside a guarded map gets zero pages over the rest of the map
    /// and marks it shrunk; any other goes on to the previous action.
    extern "C" fn on_sigbus(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid `siginfo_t` to an `SA_SIGINFO` handler.
        let address = unsafe { (*info).si_addr() } as usize;
        for entry in &TABLE {
            if entry.state.load(Ordering::Acquire) != GUARDED {
                continue;
            }
            let (start, end) = (
                entry.start.load(Ordering::Relaxed),
                entry.end.load(Ordering::Relaxed),
            );
            if !(start..end).contains(&address) {
                continue;
            }
            let page = address & !(PAGE.load(Ordering::Relaxed) - 1);
            // SAFETY: `page..end` lies inside a live map of ours (its slot is given back
            // before it is unmapped), so replacing those pages touches no other memory.
            // mmap is a plain system call, safe to make in a signal handler on Linux.
            let replaced = unsafe {
                libc::mmap(
                    page as *mut libc::c_void,
                    end - page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if replaced != libc::MAP_FAILED {
                entry.shrank.store(true, Ordering::Release);
                return;
            }
            break;
        }
        pass_on(signal, info, context);
    }

    /// Hands a fault that is not ours to the action that was there before.
    fn pass_on(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        // Always set before the handler is installed.
        let Some(previous) = PREVIOUS.get() else {
            return;
        };
        let handler = previous.sa_sigaction;
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            // The default back: returning retries the access, whose fault then ends the
            // process as it would have without us (a fault's SIGBUS is not ignorable).
            // SAFETY: a default action, which the kernel accepts.
            unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
        } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
            // SAFETY: with SA_SIGINFO the handler has this signature.
            let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(handler) };
            handler(signal, info, context);
        } else {
            // SAFETY: without SA_SIGINFO the handler takes the signal number only.
            let handler: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
            handler(signal);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod elsewhere {
    use std::fs::File;
    use std::sync::Arc;

    use crate::error::Result;

    /// Where no handler guards maps, nothing is mapped: files are read.
    pub enum GuardedMap {}

    impl GuardedMap {
        /// Always `None`: the file is read instead.
        pub fn new(_file: &File, _len: usize) -> Result<Option<Self>> {
            Ok(None)
        }

        pub fn shrank(&self) -> bool {
            match *self {}
        }
    }

    /// Never made.
    pub struct SharedMap(pub Arc<GuardedMap>);

    impl AsRef<[u8]> for SharedMap {
        fn as_ref(&self) -> &[u8] {
            match *self.0 {}
        }
    }
}
