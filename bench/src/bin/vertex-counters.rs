//! `vertex-counters -- CMD ARGS…`: runs a command and prints the hardware
//! counters of all its threads, user space only, as one JSON object on stdout.
//!
//! Why: the 16-core host where CPU scaling is measured (issue 20) has no
//! `perf`, and `perf_event_paranoid` 2 still lets a process count its own
//! children in user space. Counting a whole process includes its set-up (graph
//! generation, loading), so compare two runs that differ only in repeats
//! (e.g. gapbs `-n 1` against `-n 21`, `vertex compare --repeats 1` against
//! `21`): the difference is the repeated runs alone.
//!
//! How: the child stops itself before `exec`, the counters are opened on it
//! with `inherit` (every thread it starts) and `enable_on_exec`, and it is
//! continued; the counts are read after it exits. Counters the machine lacks
//! are reported as `null`. Linux only.

#[cfg(target_os = "linux")]
fn main() -> anyhow::Result<()> {
    linux::main()
}

#[cfg(not(target_os = "linux"))]
fn main() -> anyhow::Result<()> {
    anyhow::bail!("vertex-counters reads Linux perf events; this is not Linux")
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::CString;
    use std::os::fd::{FromRawFd, OwnedFd};

    use anyhow::{bail, Context};

    /// `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER0` (64 bytes); the
    /// kernel reads the fields it was given and zero-extends the rest.
    #[repr(C)]
    #[derive(Default)]
    struct Attr {
        kind: u32,
        size: u32,
        config: u64,
        sample_period: u64,
        sample_type: u64,
        read_format: u64,
        flags: u64,
        wakeup_events: u32,
        bp_type: u32,
        config1: u64,
    }

    const HARDWARE: u32 = 0;
    const SOFTWARE: u32 = 1;
    const HW_CACHE: u32 = 3;
    // `flags` bits.
    const DISABLED: u64 = 1 << 0;
    const INHERIT: u64 = 1 << 1;
    const EXCLUDE_KERNEL: u64 = 1 << 5;
    const EXCLUDE_HV: u64 = 1 << 6;
    const ENABLE_ON_EXEC: u64 = 1 << 12;
    // `read_format`: the value, then the times enabled and running (counters
    // are multiplexed when there are more events than hardware counters).
    const TOTAL_TIME_ENABLED: u64 = 1 << 0;
    const TOTAL_TIME_RUNNING: u64 = 1 << 1;
    const FD_CLOEXEC: libc::c_ulong = 8;

    /// `(name, type, config)` of every event counted.
    const EVENTS: [(&str, u32, u64); 10] = [
        ("cycles", HARDWARE, 0),
        ("instructions", HARDWARE, 1),
        ("cache_references", HARDWARE, 2),
        ("cache_misses", HARDWARE, 3),
        ("branch_misses", HARDWARE, 5),
        // L1D read accesses and misses: cache L1D (0), op read (0), result
        // access (0) / miss (1).
        ("l1d_loads", HW_CACHE, 0),
        ("l1d_load_misses", HW_CACHE, 1 << 16),
        ("task_clock_ns", SOFTWARE, 1),
        ("context_switches", SOFTWARE, 3),
        ("cpu_migrations", SOFTWARE, 4),
    ];

    fn open(pid: libc::pid_t, kind: u32, config: u64) -> Option<OwnedFd> {
        let attr = Attr {
            kind,
            size: std::mem::size_of::<Attr>() as u32,
            config,
            read_format: TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING,
            // Software events (clock, switches) happen in the kernel: keep them.
            flags: DISABLED
                | INHERIT
                | ENABLE_ON_EXEC
                | if kind == SOFTWARE {
                    0
                } else {
                    EXCLUDE_KERNEL | EXCLUDE_HV
                },
            ..Attr::default()
        };
        // SAFETY: `attr` is a valid perf_event_attr of the size it states; the
        // call only reads it. pid = the stopped child, cpu = any, no group.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const Attr,
                pid,
                -1 as libc::c_int,
                -1 as libc::c_int,
                FD_CLOEXEC,
            )
        };
        // SAFETY: a non-negative result is a new file descriptor we own.
        (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as i32) })
    }

    /// The scaled count of a counter opened by [`open`].
    fn read(fd: &OwnedFd) -> Option<u64> {
        use std::io::Read;
        let mut buf = [0u8; 24];
        let mut f = std::fs::File::from(fd.try_clone().ok()?);
        f.read_exact(&mut buf).ok()?;
        let word =
            |i: usize| u64::from_ne_bytes(buf[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
        let (value, enabled, running) = (word(0), word(1), word(2));
        if running == 0 {
            return (value == 0).then_some(0);
        }
        Some((value as f64 * enabled as f64 / running as f64).round() as u64)
    }

    pub fn main() -> anyhow::Result<()> {
        let mut args: Vec<String> = std::env::args().skip(1).collect();
        if args.first().map(String::as_str) == Some("--") {
            args.remove(0);
        }
        if args.is_empty() || args[0] == "-h" || args[0] == "--help" {
            bail!("usage: vertex-counters -- CMD [ARGS...]  (prints the command's user-space hardware counters as JSON)");
        }
        let cargs: Vec<CString> = args
            .iter()
            .map(|a| CString::new(a.as_str()).context("an argument holds a NUL byte"))
            .collect::<anyhow::Result<_>>()?;
        let mut argv: Vec<*const libc::c_char> = cargs.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        let start = std::time::Instant::now();
        // SAFETY: this program has one thread, so the child may run anything
        // between fork and exec; it only stops itself and execs.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            bail!("fork failed: {}", std::io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: async-signal-safe calls with valid, NUL-terminated
            // arguments prepared before the fork.
            unsafe {
                libc::raise(libc::SIGSTOP);
                libc::execvp(argv[0], argv.as_ptr());
                libc::_exit(127);
            }
        }
        let mut status = 0;
        // SAFETY: waits for our own child to stop.
        if unsafe { libc::waitpid(pid, &mut status, libc::WUNTRACED) } != pid
            || !libc::WIFSTOPPED(status)
        {
            bail!("the child did not stop before exec");
        }
        let fds: Vec<Option<OwnedFd>> = EVENTS.iter().map(|&(_, k, c)| open(pid, k, c)).collect();
        // SAFETY: continues our own stopped child.
        unsafe { libc::kill(pid, libc::SIGCONT) };
        // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: waits for our own child to exit; `usage` is a valid out-pointer.
        if unsafe { libc::wait4(pid, &mut status, 0, &mut usage) } != pid {
            bail!(
                "waiting for the child failed: {}",
                std::io::Error::last_os_error()
            );
        }
        let wall = start.elapsed().as_secs_f64();
        let code = if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        };
        let mut out = serde_json::Map::new();
        out.insert("command".into(), serde_json::json!(args));
        out.insert("exit_code".into(), serde_json::json!(code));
        out.insert("wall_s".into(), serde_json::json!(wall));
        // From the child's resource usage (all its threads): sleeps (blocking
        // calls, page-fault locks) apart from preemptions.
        out.insert(
            "voluntary_switches".into(),
            serde_json::json!(usage.ru_nvcsw),
        );
        out.insert(
            "involuntary_switches".into(),
            serde_json::json!(usage.ru_nivcsw),
        );
        out.insert("minor_faults".into(), serde_json::json!(usage.ru_minflt));
        out.insert("major_faults".into(), serde_json::json!(usage.ru_majflt));
        for ((name, _, _), fd) in EVENTS.iter().zip(&fds) {
            let v = fd.as_ref().and_then(read);
            out.insert((*name).into(), serde_json::json!(v));
        }
        println!("{}", serde_json::Value::Object(out));
        if code != 0 {
            std::process::exit(if code > 0 { code } else { 1 });
        }
        Ok(())
    }
}
