//! A read-only reader of SQLite's database file format (sqlite.org/fileformat.html), the part
//! an Optuna storage needs: the schema, and every row of a table by a full scan of its table
//! b-tree (interior and leaf pages, overflow chains), from the file's bytes.
//!
//! Written here because no well-kept crate does this from bytes in the page's
//! wasm32-unknown-unknown build: rusqlite and sqlite-wasm-rs bind the C library,
//! sqlite_wasm_reader opens files by path, and sqlite-parser-nom 1.0.0 (which does compile for
//! wasm32 and reads pages from bytes) walks no b-tree and leaves overflow pages unread (a
//! "todo" in its source), so a long `distribution_json` would come back cut. The tests read
//! databases SQLite itself wrote (Optuna's storage, made by its own script). Every
//! offset is checked: a damaged or hostile file is an error naming the page, never a panic,
//! and a page met twice in one scan (a cycle) stops it.

use std::collections::BTreeSet;

use crate::error::{EngineError, Result};

/// The first 16 bytes of every SQLite database.
pub const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// A value of a column.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A float.
    Real(f64),
    /// Text (UTF-8 databases only).
    Text(String),
    /// A blob.
    Blob(Vec<u8>),
}

impl SqlValue {
    /// As a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            SqlValue::Int(i) => Some(i as f64),
            SqlValue::Real(r) => Some(r),
            _ => None,
        }
    }

    /// As an integer, if it is one.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            SqlValue::Int(i) => Some(i),
            _ => None,
        }
    }

    /// As text, if it is text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            SqlValue::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// A database image in memory.
pub struct Database<'a> {
    file: &'a str,
    bytes: &'a [u8],
    page_size: usize,
    usable: usize,
}

/// A table's rows, by column name.
pub struct Table {
    /// Column names, in declaration order.
    pub columns: Vec<String>,
    /// Rows, one value per column.
    pub rows: Vec<Vec<SqlValue>>,
}

impl Table {
    /// The index of a column.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }
}

impl<'a> Database<'a> {
    /// Opens an image: checks the header, the page size and the text encoding.
    pub fn open(file: &'a str, bytes: &'a [u8]) -> Result<Self> {
        if bytes.len() < 100 || &bytes[..16] != MAGIC {
            return Err(EngineError::parse(file, "not an SQLite database (its first bytes are not \"SQLite format 3\")"));
        }
        let raw = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
        let page_size = if raw == 1 { 65536 } else { raw };
        if !page_size.is_power_of_two() || !(512..=65536).contains(&page_size) {
            return Err(EngineError::parse(file, format!("an SQLite header with a page size of {page_size} bytes")));
        }
        let usable = page_size - bytes[20] as usize;
        if usable < 480 {
            return Err(EngineError::parse(file, "an SQLite header reserving too much of each page"));
        }
        let encoding = u32::from_be_bytes([bytes[56], bytes[57], bytes[58], bytes[59]]);
        if encoding > 1 {
            return Err(EngineError::parse(file, "an SQLite database in UTF-16: only UTF-8 databases are read (Optuna writes UTF-8)"));
        }
        Ok(Database { file, bytes, page_size, usable })
    }

    fn bad(&self, page: usize, what: &str) -> EngineError {
        EngineError::parse(self.file, format!("the database is damaged: page {page} {what}"))
    }

    /// The bytes of page `n` (from 1).
    fn page(&self, n: usize) -> Result<&'a [u8]> {
        let start = n.checked_sub(1).map(|k| k * self.page_size).ok_or_else(|| self.bad(n, "does not exist"))?;
        self.bytes.get(start..start + self.page_size).ok_or_else(|| self.bad(n, "lies beyond the end of the file"))
    }

    /// Every table's name, root page and CREATE statement (from the schema on page 1).
    fn schema(&self) -> Result<Vec<(String, usize, String)>> {
        let mut out = Vec::new();
        for (_, row) in self.scan(1)? {
            // sqlite_schema: type, name, tbl_name, rootpage, sql.
            if row.first().and_then(SqlValue::as_str) == Some("table") {
                let name = row.get(1).and_then(SqlValue::as_str).unwrap_or_default().to_string();
                let root = row.get(3).and_then(SqlValue::as_i64).unwrap_or(0).max(0) as usize;
                let sql = row.get(4).and_then(SqlValue::as_str).unwrap_or_default().to_string();
                out.push((name, root, sql));
            }
        }
        Ok(out)
    }

    /// The names of the tables.
    pub fn tables(&self) -> Result<Vec<String>> {
        Ok(self.schema()?.into_iter().map(|(n, _, _)| n).collect())
    }

    /// Every row of table `name`; a column that aliases the rowid (`INTEGER PRIMARY KEY`)
    /// holds the rowid.
    pub fn table(&self, name: &str) -> Result<Table> {
        let (_, root, sql) = self
            .schema()?
            .into_iter()
            .find(|(n, _, _)| n == name)
            .ok_or_else(|| EngineError::parse(self.file, format!("the database has no table '{name}'")))?;
        let (columns, rowid_alias) = columns_of(&sql);
        let rows = self
            .scan(root)?
            .into_iter()
            .map(|(rowid, mut row)| {
                row.resize(columns.len(), SqlValue::Null);
                if let Some(k) = rowid_alias {
                    row[k] = SqlValue::Int(rowid);
                }
                row
            })
            .collect();
        Ok(Table { columns, rows })
    }

    /// Every (rowid, record) of the table b-tree rooted at `root`, in rowid order.
    fn scan(&self, root: usize) -> Result<Vec<(i64, Vec<SqlValue>)>> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                return Err(self.bad(n, "is reached twice (a cycle in the b-tree)"));
            }
            let page = self.page(n)?;
            let at = if n == 1 { 100 } else { 0 };
            let kind = *page.get(at).ok_or_else(|| self.bad(n, "has no header"))?;
            let header = match kind {
                0x05 => 12,
                0x0D => 8,
                _ => return Err(self.bad(n, &format!("is not a table b-tree page (type {kind})"))),
            };
            let cells = be16(page, at + 3).ok_or_else(|| self.bad(n, "has a cut header"))?;
            let pointer = |k: usize| be16(page, at + header + 2 * k).ok_or_else(|| self.bad(n, "has a cut cell pointer"));
            if kind == 0x05 {
                // Children pushed right to left, so that the left-most is scanned first.
                let right = be32(page, at + 8).ok_or_else(|| self.bad(n, "has no right-most pointer"))?;
                stack.push(right);
                for k in (0..cells).rev() {
                    let cell = pointer(k)?;
                    stack.push(be32(page, cell).ok_or_else(|| self.bad(n, "has a cut child pointer"))?);
                }
            } else {
                for k in 0..cells {
                    let cell = pointer(k)?;
                    let (size, a) = varint(page, cell).ok_or_else(|| self.bad(n, "has a cut cell"))?;
                    let (rowid, b) = varint(page, cell + a).ok_or_else(|| self.bad(n, "has a cut cell"))?;
                    let payload = self.payload(n, page, cell + a + b, size as usize)?;
                    out.push((rowid as i64, record(&payload).ok_or_else(|| self.bad(n, "has a record that does not parse"))?));
                }
            }
        }
        Ok(out)
    }

    /// A cell's payload of `size` bytes from offset `at`, following its overflow pages.
    fn payload(&self, n: usize, page: &[u8], at: usize, size: usize) -> Result<Vec<u8>> {
        let u = self.usable;
        let max_local = u - 35;
        if size <= max_local {
            return page.get(at..at + size).map(<[u8]>::to_vec).ok_or_else(|| self.bad(n, "has a payload past its end"));
        }
        let min_local = (u - 12) * 32 / 255 - 23;
        let k = min_local + (size - min_local) % (u - 4);
        let local = if k <= max_local { k } else { min_local };
        let mut out = page.get(at..at + local).ok_or_else(|| self.bad(n, "has a payload past its end"))?.to_vec();
        let mut next = be32(page, at + local).ok_or_else(|| self.bad(n, "has a cut overflow pointer"))?;
        let mut hops = 0;
        while out.len() < size {
            hops += 1;
            if next == 0 || hops > self.bytes.len() / self.page_size {
                return Err(self.bad(n, "has an overflow chain that ends early or loops"));
            }
            let overflow = self.page(next)?;
            let take = (size - out.len()).min(u - 4);
            out.extend_from_slice(overflow.get(4..4 + take).ok_or_else(|| self.bad(next, "is a cut overflow page"))?);
            next = be32(overflow, 0).unwrap_or(0);
        }
        Ok(out)
    }
}

fn be16(b: &[u8], at: usize) -> Option<usize> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]) as usize)
}

fn be32(b: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
}

/// SQLite's variable-length integer at `at`: its value and length (1 to 9 bytes).
fn varint(b: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..9 {
        let byte = *b.get(at + i)?;
        if i == 8 {
            return Some(((v << 8) | byte as u64, 9));
        }
        v = (v << 7) | (byte & 0x7f) as u64;
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// A record: its header of serial types, then the values.
fn record(p: &[u8]) -> Option<Vec<SqlValue>> {
    let (header_len, mut h) = varint(p, 0)?;
    let header_len = header_len as usize;
    let mut body = header_len;
    let mut out = Vec::new();
    while h < header_len {
        let (serial, n) = varint(p, h)?;
        h += n;
        let int = |len: usize, body: usize| -> Option<i64> {
            let bytes = p.get(body..body + len)?;
            let mut v: i64 = if bytes.first()? & 0x80 != 0 { -1 } else { 0 };
            for &x in bytes {
                v = (v << 8) | x as i64;
            }
            Some(v)
        };
        let (value, len) = match serial {
            0 => (SqlValue::Null, 0),
            1..=4 => (SqlValue::Int(int(serial as usize, body)?), serial as usize),
            5 => (SqlValue::Int(int(6, body)?), 6),
            6 => (SqlValue::Int(int(8, body)?), 8),
            7 => (SqlValue::Real(f64::from_bits(u64::from_be_bytes(p.get(body..body + 8)?.try_into().ok()?))), 8),
            8 => (SqlValue::Int(0), 0),
            9 => (SqlValue::Int(1), 0),
            10 | 11 => return None,
            s if s % 2 == 0 => {
                let len = ((s - 12) / 2) as usize;
                (SqlValue::Blob(p.get(body..body + len)?.to_vec()), len)
            }
            s => {
                let len = ((s - 13) / 2) as usize;
                (SqlValue::Text(String::from_utf8_lossy(p.get(body..body + len)?).into_owned()), len)
            }
        };
        body += len;
        out.push(value);
    }
    Some(out)
}

/// The column names of a CREATE TABLE statement, and which one aliases the rowid (declared
/// `INTEGER` and the table's one-column primary key).
fn columns_of(sql: &str) -> (Vec<String>, Option<usize>) {
    let inner = sql.find('(').and_then(|a| sql.rfind(')').filter(|&b| b > a).map(|b| &sql[a + 1..b])).unwrap_or_default();
    // Split on commas outside parentheses.
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, ch) in inner.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(inner[start..].trim());
    let unquote = |s: &str| s.trim_matches(|c| c == '"' || c == '`' || c == '[' || c == ']').to_string();
    let constraint = |p: &str| {
        let upper = p.to_ascii_uppercase();
        ["PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "CONSTRAINT"].iter().any(|k| upper.starts_with(k))
    };
    let mut columns = Vec::new();
    let mut integer = Vec::new();
    let mut key: Option<String> = None;
    for p in parts.iter().filter(|p| !p.is_empty()) {
        if constraint(p) {
            let upper = p.to_ascii_uppercase();
            if let Some(k) = upper.find("PRIMARY KEY") {
                let rest = &p[k + 11..];
                if let Some(list) = rest.find('(').and_then(|a| rest.find(')').map(|b| &rest[a + 1..b])) {
                    if !list.contains(',') {
                        key = Some(unquote(list.trim()));
                    }
                }
            }
            continue;
        }
        let mut words = p.split_whitespace();
        let name = unquote(words.next().unwrap_or_default());
        let kind = words.next().unwrap_or_default().to_ascii_uppercase();
        if kind == "INTEGER" && p.to_ascii_uppercase().contains("PRIMARY KEY") {
            key = Some(name.clone());
        }
        integer.push(kind == "INTEGER");
        columns.push(name);
    }
    let alias = key.and_then(|k| columns.iter().position(|c| *c == k)).filter(|&i| integer[i]);
    (columns, alias)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DB: &[u8] = include_bytes!("../../../../tests/fixtures/studies/optuna-mlp.db");

    #[test]
    fn varints_and_records_match_the_format() {
        assert_eq!(varint(&[0x05], 0), Some((5, 1)));
        assert_eq!(varint(&[0x81, 0x00], 0), Some((128, 2)));
        assert_eq!(varint(&[0xff; 9], 0), Some((u64::MAX, 9)));
        // A header of 5 bytes (its length, then NULL, a 1-byte int, a float, text of 2): -2, 1.0, "hi".
        let p = [5u8, 0, 1, 7, 17, 0xfe, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, b'h', b'i'];
        assert_eq!(record(&p), Some(vec![SqlValue::Null, SqlValue::Int(-2), SqlValue::Real(1.0), SqlValue::Text("hi".into())]));
        let (cols, alias) =
            columns_of("CREATE TABLE t (\n\tid INTEGER NOT NULL, \n\t\"key\" VARCHAR(5), \n\tPRIMARY KEY (id), UNIQUE (id, \"key\")\n)");
        assert_eq!((cols, alias), (vec!["id".to_string(), "key".to_string()], Some(0)));
    }

    #[test]
    fn an_optuna_storage_reads_as_sqlite_wrote_it() {
        let db = Database::open("optuna-mlp.db", DB).unwrap();
        assert!(db.tables().unwrap().contains(&"trial_intermediate_values".to_string()));
        let studies = db.table("studies").unwrap();
        let names: Vec<&str> = studies.rows.iter().filter_map(|r| r[1].as_str()).collect();
        assert_eq!(names, ["mlp-cifar", "mlp-svhn", "lr-only"]);
        assert_eq!(studies.rows.iter().map(|r| r[0].as_i64().unwrap()).collect::<Vec<_>>(), [1, 2, 3]);
        // 40 + 40 + 10 trials; their ids are the rowids 1..=90 in order.
        let trials = db.table("trials").unwrap();
        assert_eq!(trials.rows.len(), 90);
        assert!(trials.rows.iter().enumerate().all(|(i, r)| r[0].as_i64() == Some(i as i64 + 1)));
        // Distributions are JSON text, some long enough for several cells.
        let params = db.table("trial_params").unwrap();
        let c = params.column("distribution_json").unwrap();
        assert!(params.rows.iter().all(|r| r[c].as_str().is_some_and(|j| j.starts_with('{'))));
    }

    #[test]
    fn damaged_images_are_errors_not_panics() {
        assert!(Database::open("x.db", b"not a database").is_err());
        let mut cut = DB[..4096 * 3].to_vec();
        let db = Database::open("cut.db", &cut).unwrap();
        assert!(db.table("trials").is_err());
        // Every byte of page 1's b-tree header flipped in turn: an error or rows, never a panic.
        for i in 100..112 {
            cut[i] ^= 0xff;
            if let Ok(db) = Database::open("flip.db", &cut) {
                let _ = db.tables();
            }
            cut[i] ^= 0xff;
        }
    }
}
