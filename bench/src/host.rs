//! The machine a benchmark report was measured on: every report carries one, so
//! that numbers from different hosts are never compared by mistake.

/// The machine the numbers come from.
#[derive(Clone, Debug, serde::Serialize)]
pub struct HostInfo {
    pub cpu: String,
    pub threads: usize,
    pub unix_time: u64,
    pub git_rev: Option<String>,
}

impl HostInfo {
    pub fn read() -> HostInfo {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        HostInfo {
            cpu,
            threads: rayon::current_num_threads(),
            unix_time: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            git_rev: std::env::var("VERTEX_GIT_REV").ok(),
        }
    }
}
