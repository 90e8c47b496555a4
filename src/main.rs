use clap::Parser;
use sp_inspect::cli::Cli;
use sp_inspect::run::{run, Outcome, RunError};
use std::io::{self, Write};
use std::process::ExitCode;

/// The system allocator for small inputs, mimalloc for large ones; see [`alloc::Chosen`].
mod alloc {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::ffi::{c_char, c_int, CStr};
    use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};

    /// From this input size on, mimalloc is worth its start (benches/small.sh, benches/run.sh).
    pub const LARGE: u64 = 1 << 20;

    const UNDECIDED: u8 = 0;
    const SYSTEM: u8 = 1;
    const MIMALLOC: u8 = 2;
    static CHOICE: AtomicU8 = AtomicU8::new(UNDECIDED);
    static ARGV: AtomicPtr<*const c_char> = AtomicPtr::new(std::ptr::null_mut());

    /// Decoding a large file allocates many small strings and vectors, and mimalloc makes that about a
    /// quarter cheaper than glibc's malloc (benches/run.sh). But its first allocation reserves and
    /// touches its arena: about 0.3 ms and 6 MiB of RSS, more than a whole `show` of a 20 KB file
    /// (benches/small.sh). So the allocator is chosen once, at the first allocation, before any block
    /// exists: mimalloc when an argument is a file (or a directory's `_metadata`) of at least [`LARGE`]
    /// bytes, else the system's. Every block is then freed by the allocator that made it.
    pub struct Chosen;

    /// glibc calls `.init_array` functions with the process's arguments, before `main` (std reads its
    /// own `args` the same way). Keeping `argv` lets the choice be made without allocating.
    #[cfg(target_os = "linux")]
    #[used]
    #[link_section = ".init_array"]
    static KEEP_ARGV: extern "C" fn(c_int, *const *const c_char, *const *const c_char) = keep_argv;

    #[cfg(target_os = "linux")]
    extern "C" fn keep_argv(_argc: c_int, argv: *const *const c_char, _env: *const *const c_char) {
        ARGV.store(argv.cast_mut(), Ordering::Relaxed);
    }

    /// Whether `path` (NUL-terminated) is a file of at least [`LARGE`] bytes or a directory whose
    /// `_metadata` is. No allocation: the directory's path is built on the stack.
    fn large(path: &CStr) -> bool {
        // SAFETY: stat only writes the struct it is given; `path` is NUL-terminated.
        let stat = |p: *const c_char| unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            (libc::stat(p, &mut st) == 0).then_some(st)
        };
        let Some(st) = stat(path.as_ptr()) else {
            return false;
        };
        match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => st.st_size as u64 >= LARGE,
            libc::S_IFDIR => {
                const NAME: &[u8] = b"/_metadata\0";
                let mut buf = [0u8; 4096];
                let p = path.to_bytes();
                if p.len() + NAME.len() > buf.len() {
                    return false;
                }
                buf[..p.len()].copy_from_slice(p);
                buf[p.len()..p.len() + NAME.len()].copy_from_slice(NAME);
                stat(buf.as_ptr().cast()).is_some_and(|st| st.st_size as u64 >= LARGE)
            }
            _ => false,
        }
    }

    #[cold]
    fn decide() -> u8 {
        let argv = ARGV.load(Ordering::Relaxed).cast_const();
        // Without the arguments (not Linux, or an allocation before `.init_array` ran), as before.
        let mut choice = if argv.is_null() { MIMALLOC } else { SYSTEM };
        if !argv.is_null() {
            // SAFETY: argv is the process's NULL-terminated argument vector, which lives as long as
            // the process. argv[0] is the program; the arguments follow it.
            unsafe {
                let mut arg = argv;
                while !(*arg).is_null() {
                    if arg != argv && large(CStr::from_ptr(*arg)) {
                        choice = MIMALLOC;
                        break;
                    }
                    arg = arg.add(1);
                }
            }
        }
        // The first allocation happens on the main thread before any other exists; should two
        // threads race here anyway, the first choice stands.
        match CHOICE.compare_exchange(UNDECIDED, choice, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => choice,
            Err(earlier) => earlier,
        }
    }

    #[inline]
    fn mimalloc() -> bool {
        match CHOICE.load(Ordering::Relaxed) {
            UNDECIDED => decide() == MIMALLOC,
            c => c == MIMALLOC,
        }
    }

    // SAFETY: the choice is made before the first block and never changes, so every block is freed
    // and resized by the allocator that made it; both uphold GlobalAlloc's contract.
    unsafe impl GlobalAlloc for Chosen {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if mimalloc() {
                unsafe { mimalloc::MiMalloc.alloc(layout) }
            } else {
                unsafe { System.alloc(layout) }
            }
        }

        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            if mimalloc() {
                unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
            } else {
                unsafe { System.alloc_zeroed(layout) }
            }
        }

        #[inline]
        unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
            if mimalloc() {
                unsafe { mimalloc::MiMalloc.dealloc(p, layout) }
            } else {
                unsafe { System.dealloc(p, layout) }
            }
        }

        #[inline]
        unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if mimalloc() {
                unsafe { mimalloc::MiMalloc.realloc(p, layout, new_size) }
            } else {
                unsafe { System.realloc(p, layout, new_size) }
            }
        }
    }
}

#[global_allocator]
static GLOBAL: alloc::Chosen = alloc::Chosen;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut err = io::stderr();
    match run(cli, &mut out, &mut err) {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::Incomplete) => ExitCode::from(2),
        Err(RunError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            // This level's words, then each cause: "FILE: byte offset N in …: what was expected".
            let mut message = e.to_string();
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                message.push_str(": ");
                message.push_str(&c.to_string());
                cause = c.source();
            }
            let _ = writeln!(err, "sp-inspect: error: {message}");
            ExitCode::from(2)
        }
    }
}
