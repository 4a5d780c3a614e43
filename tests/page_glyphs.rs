//! The page's own text uses only characters that common fonts have: the hourglass and pause
//! signs of Unicode's Miscellaneous Technical block (U+2300–U+23FF) and emoji showed as boxes
//! on a Linux projector. Icons are drawn (CSS, SVG) or said in words.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if matches!(path.extension().and_then(|e| e.to_str()), Some("rs" | "css" | "js" | "html")) {
            out.push(path);
        }
    }
}

#[test]
fn no_page_text_needs_a_glyph_common_fonts_lack() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("index.html")];
    files(&root.join("crates/web/src"), &mut paths);
    files(&root.join("www"), &mut paths);
    let mut found = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, l) in text.lines().enumerate() {
            for ch in l.chars() {
                let c = ch as u32;
                if (0x2300..=0x23FF).contains(&c) || (0x1F300..=0x1FAFF).contains(&c) {
                    found.push(format!("{}:{}: U+{c:04X} '{ch}'", path.strip_prefix(root).unwrap().display(), line + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
