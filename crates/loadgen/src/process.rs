//! What a process costs, read from Linux's `/proc`: the load generator
//! watches the server it loads (given its pid) to report memory and CPU.

use anyhow::{Context, bail};

/// A process's resident memory and CPU time so far.
#[derive(Clone, Copy, Debug)]
pub struct ProcessSample {
    pub rss_kib: u64,
    pub cpu_seconds: f64,
}

impl ProcessSample {
    /// The sum over `pids` (the nodes of a cluster); `None` for no process.
    pub fn read_all(pids: &[u32]) -> anyhow::Result<Option<ProcessSample>> {
        let mut total: Option<ProcessSample> = None;
        for &pid in pids {
            let one = ProcessSample::read(pid)?;
            let sum = total.get_or_insert(ProcessSample { rss_kib: 0, cpu_seconds: 0.0 });
            sum.rss_kib += one.rss_kib;
            sum.cpu_seconds += one.cpu_seconds;
        }
        Ok(total)
    }

    pub fn read(pid: u32) -> anyhow::Result<ProcessSample> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .with_context(|| format!("reading /proc/{pid}/status"))?;
        let rss_kib = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .context("no VmRSS in /proc status")?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .with_context(|| format!("reading /proc/{pid}/stat"))?;
        // Fields after the command's closing parenthesis; utime and stime are
        // the 14th and 15th of the whole line, in clock ticks (100 a second on Linux).
        let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        let ticks = |index: usize| fields.get(index).and_then(|f| f.parse::<f64>().ok());
        let (Some(user), Some(system)) = (ticks(11), ticks(12)) else {
            bail!("unreadable /proc/{pid}/stat");
        };
        Ok(ProcessSample { rss_kib, cpu_seconds: (user + system) / CLOCK_TICKS })
    }
}

/// `sysconf(_SC_CLK_TCK)`, which is 100 on every Linux this runs on.
const CLOCK_TICKS: f64 = 100.0;

/// CPU time spent from [`CpuClock::start`] on by this process (the load
/// generator), by the server it loads, if its pid is known, and by any other
/// processes watched (a cluster's other nodes, its NATS server): all share
/// the machine's cores, so each report gives each.
#[derive(Clone, Debug)]
pub struct CpuClock {
    own: f64,
    server: Option<(u32, f64)>,
    watched: Vec<(u32, f64)>,
}

impl CpuClock {
    pub fn start(server_pid: Option<u32>) -> anyhow::Result<CpuClock> {
        CpuClock::watching(server_pid, &[])
    }

    /// The same, watching `others` too.
    pub fn watching(server_pid: Option<u32>, others: &[u32]) -> anyhow::Result<CpuClock> {
        let now = |pid: u32| anyhow::Ok((pid, ProcessSample::read(pid)?.cpu_seconds));
        Ok(CpuClock {
            own: ProcessSample::read(std::process::id())?.cpu_seconds,
            server: server_pid.map(now).transpose()?,
            watched: others.iter().map(|&pid| now(pid)).collect::<anyhow::Result<_>>()?,
        })
    }

    /// Microseconds of CPU per unit of `work` done since the start: this
    /// process's, and the server's; `None` where there is nothing to divide.
    pub fn per(&self, work: u64) -> anyhow::Result<(Option<f64>, Option<f64>)> {
        let own = ProcessSample::read(std::process::id())?.cpu_seconds - self.own;
        let server = match self.server {
            Some(start) => since(start, work)?,
            None => None,
        };
        Ok((per(own, work), server))
    }

    /// The same for each watched process, with its pid.
    pub fn watched_per(&self, work: u64) -> anyhow::Result<Vec<(u32, Option<f64>)>> {
        self.watched.iter().map(|&start| Ok((start.0, since(start, work)?))).collect()
    }
}

/// Microseconds of `seconds` per unit of `work`, if any was done.
fn per(seconds: f64, work: u64) -> Option<f64> {
    (work > 0).then(|| seconds * 1e6 / work as f64)
}

/// The same for a process's CPU since `(pid, seconds at the start)`.
fn since((pid, before): (u32, f64), work: u64) -> anyhow::Result<Option<f64>> {
    Ok(per(ProcessSample::read(pid)?.cpu_seconds - before, work))
}
