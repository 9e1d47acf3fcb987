//! The cache's remote store, which a team or a CI farm shares: the same
//! keys and the same sealed entries (magic, checksum, body) as the local
//! folder, through Apache OpenDAL (the storage layer sccache uses) rather
//! than a client of our own.
//!
//! - `redis://HOST:PORT[/DB]` (also `rediss://`, `unix://`): entries are
//!   keys under `nvregalloc-tune/`; a SET is atomic, as the local rename is.
//! - `s3://BUCKET[/PREFIX]`: any S3-compatible store; the endpoint, region
//!   and credentials come from the usual `AWS_*` variables (`AWS_ENDPOINT_URL`
//!   for MinIO and the like), as OpenDAL's S3 service reads them.
//!
//! Every operation has a time limit (`TIMEOUT`). A store that is down,
//! refuses or times out costs a warning and a local tune, never a compile:
//! the caller (`cache`) treats each error as a miss.

use std::time::Duration;

use opendal::layers::TimeoutLayer;
use opendal::{services, ErrorKind, Operator};

/// How long one read or write may take before the store counts as down.
const TIMEOUT: Duration = Duration::from_secs(3);

pub struct Remote {
    url: String,
    store: Operator,
    /// OpenDAL is asynchronous; the tuner is not. One small runtime per
    /// process, driven only while the tuner waits on the store.
    runtime: tokio::runtime::Runtime,
}

impl Remote {
    /// The store `url` names (see the module's comment).
    pub fn open(url: &str) -> Result<Self, String> {
        let (scheme, rest) = url.split_once("://").ok_or_else(|| format!("{url}: not a URL"))?;
        let store = match scheme {
            "redis" | "rediss" | "unix" | "redis+unix" => {
                let (endpoint, db) = match rest.rsplit_once('/') {
                    Some((host, db)) if !db.is_empty() => {
                        let db =
                            db.parse::<i64>().map_err(|_| format!("{url}: the database is not a number"))?;
                        (format!("{scheme}://{host}"), db)
                    }
                    _ => (format!("{scheme}://{}", rest.trim_end_matches('/')), 0),
                };
                let builder = services::Redis::default().endpoint(&endpoint).db(db).root("/nvregalloc-tune/");
                Operator::new(builder).map(|b| b.finish())
            }
            "s3" => {
                let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
                let mut builder = services::S3::default().bucket(bucket).root(&format!("/{prefix}"));
                if let Ok(endpoint) = std::env::var("AWS_ENDPOINT_URL") {
                    builder = builder.endpoint(&endpoint);
                }
                let region = std::env::var("AWS_REGION").unwrap_or_else(|_| "us-east-1".to_owned());
                Operator::new(builder.region(&region)).map(|b| b.finish())
            }
            _ => return Err(format!("{url}: no remote store for '{scheme}' (redis://, s3://)")),
        }
        .map_err(|e| format!("{url}: {e}"))?
        .layer(TimeoutLayer::new().with_timeout(TIMEOUT).with_io_timeout(TIMEOUT));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("{url}: {e}"))?;
        Ok(Remote { url: url.to_owned(), store, runtime })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The sealed entry at `path`, None where there is none.
    pub fn get(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        self.runtime.block_on(async {
            match tokio::time::timeout(TIMEOUT, self.store.read(path)).await {
                Ok(Ok(buffer)) => Ok(Some(buffer.to_vec())),
                Ok(Err(e)) if e.kind() == ErrorKind::NotFound => Ok(None),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err(format!("no answer in {} s", TIMEOUT.as_secs())),
            }
        })
    }

    pub fn put(&self, path: &str, sealed: Vec<u8>) -> Result<(), String> {
        self.runtime.block_on(async {
            match tokio::time::timeout(TIMEOUT, self.store.write(path, sealed)).await {
                Ok(result) => result.map(drop).map_err(|e| e.to_string()),
                Err(_) => Err(format!("no answer in {} s", TIMEOUT.as_secs())),
            }
        })
    }
}
