//! The peers' figures: the JSON `bench/peers.py` writes on the GPU machine (torch, CuPy,
//! Triton on the same sizes as this bench), read with `--peers FILE.json`.
//!
//! The format (docs/benchmarks.md):
//! `{"device": "...", "versions": {...}, "rows": {"vector_add_2^28_f32_ms": {"torch.add":
//! 0.738, "triton": "n/a: ImportError: ..."}, ...}}`. A row's name ends in its unit (`_ms`
//! or `_us`); a peer's value is a number, or a string saying why it has none (an import
//! that failed, a result that differed from its reference). The size is part of the name,
//! so a `--quick` bench never meets a full-size peer.

use std::path::Path;

use serde_json::Value;

use crate::table::{Peer, Unit};
use crate::Res;

/// The parsed JSON.
pub struct Peers {
    json: Value,
}

impl Peers {
    pub fn load(path: &Path) -> Res<Peers> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("reading the peers file {}: {e}", path.display()))?;
        let json: Value = serde_json::from_str(&text)
            .map_err(|e| format!("parsing the peers file {}: {e}", path.display()))?;
        if !json.get("rows").is_some_and(Value::is_object) {
            return Err(format!("{}: no \"rows\" object", path.display()).into());
        }
        Ok(Peers { json })
    }

    /// `device, versions` as one line.
    pub fn describe(&self) -> String {
        let device = self.json["device"].as_str().unwrap_or("?");
        let versions = match self.json.get("versions").and_then(Value::as_object) {
            Some(v) => v
                .iter()
                .map(|(k, v)| format!("{k} {}", v.as_str().map_or(v.to_string(), String::from)))
                .collect::<Vec<_>>()
                .join(", "),
            None => String::new(),
        };
        let date = self.json["date"].as_str().unwrap_or("?");
        format!("bench/peers.py on {device}, {date} ({versions})")
    }

    /// The peers of row `key` (without its unit suffix), converted to `unit`. A row the
    /// file lacks gives one peer that says so.
    pub fn row(&self, key: &str, unit: Unit) -> Vec<Peer> {
        let rows = &self.json["rows"];
        let found = [("ms", Unit::Ms), ("us", Unit::Us), ("ns", Unit::Ns)]
            .into_iter()
            .find_map(|(suffix, u)| Some((rows.get(format!("{key}_{suffix}"))?, u)));
        let Some((Value::Object(peers), file_unit)) = found else {
            return vec![Peer {
                name: "peers.py".into(),
                value: Err(format!("no row {key}_ms in the peers file")),
            }];
        };
        peers
            .iter()
            .map(|(name, v)| Peer {
                name: name.clone(),
                value: match v {
                    Value::Number(n) => n
                        .as_f64()
                        .map(|x| x * file_unit.ms() / unit.ms())
                        .ok_or_else(|| "not a number".to_string()),
                    Value::String(why) => Err(why.clone()),
                    other => Err(format!("unexpected {other}")),
                },
            })
            .collect()
    }
}
