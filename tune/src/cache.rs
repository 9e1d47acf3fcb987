//! The tuner's cache, which works as ccache does: an entry per source and
//! GPU, keyed by what decides the choices (the preprocessed device source,
//! the code-generation flags, the GPU, the versions of clang, the plugin,
//! ptxas and the tuner, and the objective's settings), holding the chosen
//! options and the report. A hit means no tuning build: one compile per
//! file, as without the tuner.
//!
//! Entries are written to a temporary file and renamed into place, so that
//! a reader sees a whole entry or none; each carries a checksum of its
//! body, so that a damaged one is found, tuned again and replaced (with a
//! warning), never trusted. Counters are one byte appended per event to a
//! file per counter (appends of one byte are atomic), so two builds at once
//! never lose each other's counts or corrupt them.
//!
//! A remote store (`remote`: Redis, S3) may stand beside the folder, read
//! through and written back: a local miss asks the store, and what it has
//! (checked by the same checksum) is kept locally too; a new entry goes to
//! both. A store that fails is warned about once and left alone for the
//! rest of the compile, which goes on with the folder alone.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::remote::Remote;
use crate::report::warn;

const ENTRY_MAGIC: &str = "nvregalloc-tune-cache 1";

/// A key: the SHA-256 of its labelled parts, in hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key(String);

impl Key {
    pub fn new(parts: &[(&str, &[u8])]) -> Self {
        let mut hash = Sha256::new();
        for (label, bytes) in parts {
            // Lengths first, so that no two lists of parts hash alike.
            hash.update((label.len() as u64).to_le_bytes());
            hash.update(label.as_bytes());
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(bytes);
        }
        Key(hex(&hash.finalize()))
    }

    /// One compile's key for one GPU: the tools' versions (`(label,
    /// bytes)`: the compiler's, ptxas's, the tuner's, the plugin's digest),
    /// the objective's settings, the GPU, the code-generation flags and the
    /// preprocessed device source.
    pub fn for_compile(
        versions: &[(String, Vec<u8>)],
        objective: &str,
        gpu: &str,
        flags: &[String],
        source: &[u8],
    ) -> Self {
        let flags = flags.join("\0");
        let mut parts: Vec<(&str, &[u8])> =
            versions.iter().map(|(l, v)| (l.as_str(), v.as_slice())).collect();
        parts.extend([
            ("objective", objective.as_bytes()),
            ("gpu", gpu.as_bytes()),
            ("flags", flags.as_bytes()),
            ("source", source),
        ]);
        Key::new(&parts)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a lookup found.
#[derive(Debug, PartialEq)]
pub enum Lookup {
    Hit(Vec<u8>),
    Miss,
    /// An entry that does not check out, and why.
    Corrupt(String),
}

/// The counters `--stats` shows.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    Hit,
    Miss,
    Corrupt,
    /// An entry the budget cut, tuned further.
    Partial,
    /// A local miss the remote store had.
    RemoteHit,
    /// A remote store that failed (then left alone for that compile).
    RemoteError,
    TuningBuild,
}

impl Event {
    const ALL: [Event; 7] = [
        Event::Hit,
        Event::Miss,
        Event::Corrupt,
        Event::Partial,
        Event::RemoteHit,
        Event::RemoteError,
        Event::TuningBuild,
    ];

    fn file(self) -> &'static str {
        match self {
            Event::Hit => "hits",
            Event::Miss => "misses",
            Event::Corrupt => "corrupt",
            Event::Partial => "partial",
            Event::RemoteHit => "remote-hits",
            Event::RemoteError => "remote-errors",
            Event::TuningBuild => "tuning-builds",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Event::Hit => "cache hits",
            Event::Miss => "cache misses",
            Event::Corrupt => "corrupt entries tuned again",
            Event::Partial => "partial entries tuned further",
            Event::RemoteHit => "remote hits",
            Event::RemoteError => "remote store errors",
            Event::TuningBuild => "tuning builds",
        }
    }
}

pub struct Cache {
    dir: PathBuf,
    remote: Option<Remote>,
    /// Set once the remote store has failed in this process.
    remote_down: std::sync::atomic::AtomicBool,
}

impl Cache {
    /// `dir`, else `$NVREGALLOC_CACHE`, else `$XDG_CACHE_HOME/nvregalloc`,
    /// else `~/.cache/nvregalloc`.
    pub fn open(dir: Option<PathBuf>) -> Self {
        let env = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let dir = dir
            .or_else(|| env("NVREGALLOC_CACHE"))
            .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("nvregalloc")))
            .or_else(|| env("HOME").map(|h| h.join(".cache/nvregalloc")))
            .unwrap_or_else(|| std::env::temp_dir().join("nvregalloc-cache"));
        Self { dir, remote: None, remote_down: Default::default() }
    }

    /// The same, with `remote` read through and written back.
    pub fn with_remote(self, remote: Remote) -> Self {
        Self { remote: Some(remote), ..self }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where `key`'s entry is, below the folder and in the remote store.
    fn entry_name(key: &Key) -> String {
        format!("entries/{}/{}.json", &key.0[..2], &key.0[2..])
    }

    fn entry_path(&self, key: &Key) -> PathBuf {
        self.dir.join(Self::entry_name(key))
    }

    pub fn get(&self, key: &Key) -> Lookup {
        match fs::read(self.entry_path(key)) {
            Ok(bytes) => unseal(&bytes),
            Err(_) => self.get_remote(key),
        }
    }

    /// A local miss: the remote store's entry, kept locally too.
    fn get_remote(&self, key: &Key) -> Lookup {
        let Some(remote) = self.remote_up() else { return Lookup::Miss };
        match remote.get(&Self::entry_name(key)) {
            Ok(Some(bytes)) => match unseal(&bytes) {
                Lookup::Hit(body) => {
                    self.record(Event::RemoteHit, 1);
                    if let Err(e) = self.put_local(key, &body) {
                        warn(format!("cannot keep {}'s entry locally: {e}", remote.url()));
                    }
                    Lookup::Hit(body)
                }
                // A damaged remote entry is tuned again, and replaced.
                other => other,
            },
            Ok(None) => Lookup::Miss,
            Err(e) => {
                self.remote_failed(remote, &e);
                Lookup::Miss
            }
        }
    }

    /// The remote store, unless it has failed in this process.
    fn remote_up(&self) -> Option<&Remote> {
        self.remote.as_ref().filter(|_| !self.remote_down.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn remote_failed(&self, remote: &Remote, why: &str) {
        if !self.remote_down.swap(true, std::sync::atomic::Ordering::Relaxed) {
            self.record(Event::RemoteError, 1);
            warn(format!("remote cache {}: {why}; going on without it", remote.url()));
        }
    }

    /// Stores `body` under `key`, in the folder (atomically: a temporary
    /// file renamed) and in the remote store.
    pub fn put(&self, key: &Key, body: &[u8]) -> std::io::Result<()> {
        self.put_local(key, body)?;
        if let Some(remote) = self.remote_up() {
            if let Err(e) = remote.put(&Self::entry_name(key), seal(body)) {
                self.remote_failed(remote, &e);
            }
        }
        Ok(())
    }

    fn put_local(&self, key: &Key, body: &[u8]) -> std::io::Result<()> {
        let path = self.entry_path(key);
        let folder = path.parent().expect("entries have a folder");
        fs::create_dir_all(folder)?;
        let mut tmp = tempfile::NamedTempFile::new_in(folder)?;
        tmp.write_all(&seal(body))?;
        tmp.as_file().sync_all()?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Counts `n` events; a cache folder that cannot be written loses the
    /// count, never the build.
    pub fn record(&self, event: Event, n: usize) {
        if n == 0 {
            return;
        }
        let stats = self.dir.join("stats");
        let _ = fs::create_dir_all(&stats).and_then(|_| {
            let mut f = OpenOptions::new().create(true).append(true).open(stats.join(event.file()))?;
            // One write per event: each is an atomic append of one byte.
            (0..n).try_for_each(|_| f.write_all(b"."))
        });
    }

    fn count(&self, event: Event) -> u64 {
        fs::metadata(self.dir.join("stats").join(event.file())).map_or(0, |m| m.len())
    }

    /// `--stats`: entries, their size, and the counters.
    pub fn stats(&self) -> String {
        let (mut entries, mut bytes) = (0u64, 0u64);
        for folder in fs::read_dir(self.dir.join("entries")).into_iter().flatten().flatten() {
            for entry in fs::read_dir(folder.path()).into_iter().flatten().flatten() {
                if entry.path().extension().is_some_and(|e| e == "json") {
                    entries += 1;
                    bytes += entry.metadata().map_or(0, |m| m.len());
                }
            }
        }
        let mut text = format!("cache directory                {}\n", self.dir.display());
        text += &format!("{:<30} {entries}\n", "entries");
        text += &format!("{:<30} {:.1} kB\n", "size", bytes as f64 / 1000.0);
        for event in Event::ALL {
            text += &format!("{:<30} {}\n", event.label(), self.count(event));
        }
        text
    }

    /// `--clear`: every entry and counter. Returns how many entries went.
    pub fn clear(&self) -> std::io::Result<u64> {
        let mut removed = 0;
        for folder in fs::read_dir(self.dir.join("entries")).into_iter().flatten().flatten() {
            for entry in fs::read_dir(folder.path()).into_iter().flatten().flatten() {
                removed += u64::from(fs::remove_file(entry.path()).is_ok());
            }
            let _ = fs::remove_dir(folder.path());
        }
        let _ = fs::remove_dir_all(self.dir.join("stats"));
        Ok(removed)
    }
}

/// An entry as stored: a header with the format and the body's checksum,
/// then the body.
fn seal(body: &[u8]) -> Vec<u8> {
    let mut sealed = format!("{ENTRY_MAGIC} {}\n", hex(&Sha256::digest(body))).into_bytes();
    sealed.extend_from_slice(body);
    sealed
}

/// The body of a sealed entry, if it checks out.
fn unseal(bytes: &[u8]) -> Lookup {
    let text = String::from_utf8_lossy(bytes);
    let Some((header, body)) = text.split_once('\n') else { return Lookup::Corrupt("no header".into()) };
    let Some(sum) = header.strip_prefix(ENTRY_MAGIC).map(str::trim) else {
        return Lookup::Corrupt("not a cache entry of this version".into());
    };
    if hex(&Sha256::digest(body.as_bytes())) != sum {
        return Lookup::Corrupt("checksum mismatch".into());
    }
    Lookup::Hit(body.as_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_at_once_see_whole_entries_or_none() {
        let dir = tempfile::tempdir().unwrap();
        let key = Key::new(&[("source", b"shared")]);
        let body = vec![b'x'; 200_000];
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    let cache = Cache::open(Some(dir.path().to_owned()));
                    for _ in 0..20 {
                        match cache.get(&key) {
                            Lookup::Hit(found) => assert_eq!(found, body),
                            Lookup::Miss => cache.put(&key, &body).unwrap(),
                            Lookup::Corrupt(why) => panic!("a reader saw a partial entry: {why}"),
                        }
                        cache.record(Event::Hit, 1);
                    }
                });
            }
        });
        assert!(Cache::open(Some(dir.path().to_owned()))
            .stats()
            .contains("cache hits                     80"));
    }

    #[test]
    fn entries_come_back_and_damage_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(Some(dir.path().to_owned()));
        let key = Key::new(&[("source", b"k"), ("gpu", b"sm_90")]);
        assert_ne!(key, Key::new(&[("source", b"ks"), ("gpu", b"m_90")]));
        assert_eq!(cache.get(&key), Lookup::Miss);
        cache.put(&key, b"{\"options\": 1}").unwrap();
        assert_eq!(cache.get(&key), Lookup::Hit(b"{\"options\": 1}".to_vec()));
        let path = cache.entry_path(&key);
        let damaged = fs::read_to_string(&path).unwrap().replace("1}", "2}");
        fs::write(&path, damaged).unwrap();
        assert_eq!(cache.get(&key), Lookup::Corrupt("checksum mismatch".into()));
        fs::write(&path, "").unwrap();
        assert!(matches!(cache.get(&key), Lookup::Corrupt(_)));
        cache.record(Event::Hit, 2);
        cache.record(Event::TuningBuild, 3);
        let stats = cache.stats();
        assert!(stats.contains("entries                        1"), "{stats}");
        assert!(
            stats.contains("cache hits                     2")
                && stats.contains("tuning builds                  3")
        );
        assert_eq!(cache.clear().unwrap(), 1);
        assert!(cache.stats().contains("cache hits                     0"));
        assert_eq!(cache.get(&key), Lookup::Miss);
    }

    #[test]
    fn a_compiles_key_holds_the_gpu_the_tools_and_the_plugins_bytes() {
        let versions = |plugin: &[u8]| {
            vec![("compiler".to_owned(), b"clang 22".to_vec()), ("plugin".to_owned(), plugin.to_vec())]
        };
        let key =
            |plugin: &[u8], gpu| Key::for_compile(&versions(plugin), "balanced", gpu, &["-O3".into()], b"k");
        assert_eq!(key(b"a", "sm_90"), key(b"a", "sm_90"));
        assert_ne!(key(b"a", "sm_90"), key(b"b", "sm_90"));
        assert_ne!(key(b"a", "sm_90"), key(b"a", "sm_80"));
    }
}
