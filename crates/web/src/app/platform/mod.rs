//! The browser underneath: the DOM and the URL, IndexedDB, the Web Workers (the page's side, the pool of run workers, and the worker's own code).

pub mod browser;
pub mod pool;
pub mod store;
pub mod worker;
pub mod worker_host;
pub mod workers;
