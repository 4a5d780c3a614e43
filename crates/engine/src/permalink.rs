//! Experiment setups as human-readable, versioned URL query strings.
//!
//! `?v=1&data=shared:XGBoost.csv.zip&tasks=heart&methods=RS&seeds=20&seed0=0&iters=100&transfer=loto`
//!
//! Reading is forgiving per field: an unknown or invalid field yields a message naming it and
//! falls back to the default for that field only, so a tampered link still opens.

use super::benchmark::{Direction, Metric};
use super::fidelity::gpb::view_setting::DesignViewSpec;
use super::fidelity::targets::RaceTargets;
use super::loaders::clean::MissingPolicy;
use super::loaders::table::ColumnRoles;
use super::percent::{decode_component, encode_component};
use super::spec::{
    DataRef, ExperimentSpec, ObjectiveChoice, RegretScale, TransferMode, MAX_ITERATIONS, MAX_RACE_BUDGET, MAX_SEEDS, SPEC_VERSION,
};
use crate::explore::link::StudyViewSpec;

/// A list item as it stands between the commas of a list field: a comma or backslash inside
/// a name is escaped with a backslash, so that a list splits correctly after the field is
/// percent-decoded once, however much of the link the web encoded (`methods=ASHA%2CBOHB`,
/// as mail and chat tools write it, is the list ASHA, BOHB).
fn escape_item(s: &str) -> String {
    s.replace('\\', "\\\\").replace(',', "\\,")
}

fn encode_item(s: &str) -> String {
    encode_component(&escape_item(s))
}

fn list(items: &[String]) -> String {
    items.iter().map(|s| encode_item(s)).collect::<Vec<_>>().join(",")
}

/// The query string (without `?`) that restores `spec`.
pub fn to_query(spec: &ExperimentSpec) -> String {
    let mut parts = vec![format!("v={}", spec.version), format!("data={}", encode_component(&spec.data.to_string()))];
    if let Some(o) = &spec.objective {
        parts.push(format!("objective={}", encode_component(o)));
    }
    if let Some(d) = spec.direction {
        parts.push(format!("direction={}", d.as_str()));
    }
    if !spec.objectives.is_empty() {
        let items: Vec<String> = spec
            .objectives
            .iter()
            .map(|o| format!("{}:{}", encode_item(&o.metric), o.direction.map_or("auto", Direction::as_str)))
            .collect();
        parts.push(format!("mo={}", items.join(",")));
    }
    if !spec.tasks.is_empty() {
        parts.push(format!("tasks={}", list(&spec.tasks)));
    }
    parts.push(format!("methods={}", list(&spec.methods)));
    parts.push(format!("seeds={}", spec.seeds));
    parts.push(format!("seed0={}", spec.first_seed));
    parts.push(format!("iters={}", spec.iterations));
    if let Some(b) = spec.race_budget {
        parts.push(format!("race={b}"));
    }
    parts.push(format!("transfer={}", spec.transfer.as_str()));
    if let Some(d) = &spec.design_view {
        parts.push(format!("design={}", d.to_link()));
    }
    if spec.log_y {
        parts.push("logy=1".into());
    }
    if let Some(e) = &spec.explore {
        parts.push(format!("explore={}", list(&e.items())));
    }
    if let Some(r) = spec.regret {
        parts.push(format!("regret={}", r.as_str()));
    }
    if spec.targets != RaceTargets::default() {
        parts.push(format!("targets={}", spec.targets.as_str()));
    }
    if let Some(roles) = &spec.columns {
        parts.push(format!("hp={}", list(&roles.hyperparameters)));
        if !roles.categorical.is_empty() {
            parts.push(format!("cat={}", list(&roles.categorical)));
        }
        let metrics: Vec<String> = roles.metrics.iter().map(|m| format!("{}:{}", encode_item(&m.name), m.direction.as_str())).collect();
        if !metrics.is_empty() {
            parts.push(format!("metrics={}", metrics.join(",")));
        }
        if let Some(t) = &roles.task {
            parts.push(format!("taskcol={}", encode_component(t)));
        }
        if !roles.steps.is_empty() {
            parts.push(format!("steps={}", list(&roles.steps)));
        }
        if let Some(r) = &roles.run {
            parts.push(format!("runcol={}", encode_component(r)));
        }
        if let Some(s) = &roles.step {
            parts.push(format!("stepcol={}", encode_component(s)));
        }
    }
    if spec.missing != MissingPolicy::default() {
        parts.push(format!("missing={}", spec.missing.as_str()));
    }
    if !spec.log_scale.is_empty() {
        parts.push(format!("log={}", list(&spec.log_scale)));
    }
    if !spec.linear_scale.is_empty() {
        parts.push(format!("lin={}", list(&spec.linear_scale)));
    }
    parts.join("&")
}

/// A spec read from a link, with one message per field that was unknown or invalid.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedLink {
    /// The restored setup (defaults where a field was missing or invalid).
    pub spec: ExperimentSpec,
    /// Messages naming each ignored field.
    pub warnings: Vec<String>,
}

/// Reads a query string (with or without the leading `?`).
pub fn from_query(query: &str) -> ParsedLink {
    let defaults = ExperimentSpec::default();
    let mut spec = defaults.clone();
    let mut warnings = Vec::new();
    let query = plain_query(query);
    let query = query.as_str();
    let mut roles: Option<ColumnRoles> = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
        let Some(value) = decode_component(raw) else {
            warnings.push(format!("link field '{key}' is not valid percent-encoded UTF-8; using the default"));
            continue;
        };
        let mut invalid =
            |expected: &str| warnings.push(format!("link field '{key}' = '{value}' is invalid ({expected}); using the default"));
        match key {
            // A link without `v` (hand-written, as the README's `?design=TA.D.10.0`) is read
            // as this version without a word: only another version deserves a message.
            "v" => {
                if value.parse::<u32>().ok() != Some(SPEC_VERSION) {
                    invalid(&format!("this build reads version {SPEC_VERSION}"));
                }
            }
            "data" => match value.parse::<DataRef>() {
                Ok(d) => spec.data = d,
                Err(_) => invalid("expected bundled:NAME, shared:FILE, upload:FILE@SHA256 or url:URL@SHA256"),
            },
            "objective" => {
                if value.is_empty() {
                    invalid("expected a metric name");
                } else {
                    spec.objective = Some(value.clone());
                }
            }
            "direction" => match value.as_str() {
                "min" => spec.direction = Some(Direction::Minimize),
                "max" => spec.direction = Some(Direction::Maximize),
                _ => invalid("expected min or max"),
            },
            "tasks" => match split_list(raw) {
                Some(v) => spec.tasks = v,
                None => invalid("expected a comma-separated list"),
            },
            "methods" => match split_list(raw) {
                Some(v) if !v.is_empty() => spec.methods = v,
                _ => invalid("expected a comma-separated list of methods"),
            },
            "seeds" => match value.parse::<u32>() {
                Ok(n) if (1..=MAX_SEEDS).contains(&n) => spec.seeds = n,
                _ => invalid(&format!("expected an integer from 1 to {MAX_SEEDS}")),
            },
            "seed0" => match value.parse::<u64>() {
                Ok(n) => spec.first_seed = n,
                _ => invalid("expected a non-negative integer"),
            },
            "iters" => match value.parse::<u32>() {
                Ok(n) if (1..=MAX_ITERATIONS).contains(&n) => spec.iterations = n,
                _ => invalid(&format!("expected an integer from 1 to {MAX_ITERATIONS}")),
            },
            "logy" => match value.as_str() {
                "1" | "true" => spec.log_y = true,
                "0" | "false" => spec.log_y = false,
                _ => invalid("expected 1 or 0"),
            },
            "explore" => match split_list(raw).as_deref().and_then(StudyViewSpec::from_items) {
                Some(e) => spec.explore = Some(e),
                None => invalid("expected a view (trials, history, intermediate, importance, slice, contour, parallel, edf, pareto), the study and at most two parameters, e.g. contour,,lr,n_units"),
            },
            "design" => match DesignViewSpec::parse(&value) {
                Some(d) => spec.design_view = Some(d),
                None => invalid("expected method.criterion.points.seed, e.g. TA.D.10.0 (Random/LHD/IC/TA, D/A/E, 4 to 30 points)"),
            },
            "race" => match value.parse::<u64>() {
                Ok(n) if (1..=MAX_RACE_BUDGET).contains(&n) => spec.race_budget = Some(n),
                _ => invalid(&format!("expected a budget from 1 to {MAX_RACE_BUDGET} units")),
            },
            "regret" => match RegretScale::parse(&value) {
                Some(r) => spec.regret = Some(r),
                None => invalid("expected raw or norm"),
            },
            "targets" => match RaceTargets::parse(&value) {
                Some(t) => spec.targets = t,
                None => invalid("expected raw or copula"),
            },
            "transfer" => match value.as_str() {
                "loto" => spec.transfer = TransferMode::LeaveOneTaskOut,
                "none" => spec.transfer = TransferMode::None,
                _ => invalid("expected loto or none"),
            },
            "hp" | "cat" => match split_list(raw) {
                Some(v) => {
                    let r = roles.get_or_insert_with(ColumnRoles::default);
                    if key == "hp" {
                        r.hyperparameters = v
                    } else {
                        r.categorical = v
                    }
                }
                None => invalid("expected a comma-separated list of columns"),
            },
            "metrics" => match parse_metrics(raw) {
                Some(v) => roles.get_or_insert_with(ColumnRoles::default).metrics = v,
                None => invalid("expected NAME:min or NAME:max, comma-separated"),
            },
            "mo" => match parse_objectives(raw) {
                Some(v) if v.len() >= 2 => spec.objectives = v,
                _ => invalid("expected two or more NAME:min, NAME:max or NAME:auto, comma-separated"),
            },
            "taskcol" => roles.get_or_insert_with(ColumnRoles::default).task = Some(value.clone()).filter(|v| !v.is_empty()),
            "runcol" => roles.get_or_insert_with(ColumnRoles::default).run = Some(value.clone()).filter(|v| !v.is_empty()),
            "stepcol" => roles.get_or_insert_with(ColumnRoles::default).step = Some(value.clone()).filter(|v| !v.is_empty()),
            "steps" => match split_list(raw) {
                Some(v) if !v.is_empty() => roles.get_or_insert_with(ColumnRoles::default).steps = v,
                _ => invalid("expected the step columns, or a prefix ending in *, comma-separated"),
            },
            "missing" => match MissingPolicy::parse(&value) {
                Some(m) => spec.missing = m,
                None => invalid("expected untrained, worst, drop, ffill or taskset"),
            },
            "log" | "lin" => match split_list(raw) {
                Some(v) if key == "log" => spec.log_scale = v,
                Some(v) => spec.linear_scale = v,
                None => invalid("expected a comma-separated list of hyperparameters"),
            },
            _ => warnings.push(format!("unknown link field '{key}' ignored")),
        }
    }
    if let Some(mut r) = roles {
        // A curve file's roles name its steps instead of metrics (the objective is the last step).
        if r.hyperparameters.is_empty() || (r.metrics.is_empty() && r.steps.is_empty()) {
            warnings.push("link fields 'hp' and 'metrics' (or 'steps') must both name columns; column roles ignored".into());
        } else {
            r.objective = r.metrics.first().map(|m| m.name.clone()).unwrap_or_default();
            spec.columns = Some(r);
        }
    }
    ParsedLink { spec, warnings }
}

fn parse_metrics(raw: &str) -> Option<Vec<Metric>> {
    split_list(raw)?
        .into_iter()
        .map(|item| {
            let (name, dir) = item.rsplit_once(':')?;
            let direction = match dir {
                "min" => Direction::Minimize,
                "max" => Direction::Maximize,
                _ => return None,
            };
            Some(Metric { name: name.to_string(), direction }).filter(|m| !m.name.is_empty())
        })
        .collect()
}

fn parse_objectives(raw: &str) -> Option<Vec<ObjectiveChoice>> {
    split_list(raw)?
        .into_iter()
        .map(|item| {
            let (name, dir) = item.rsplit_once(':')?;
            let direction = match dir {
                "min" => Some(Direction::Minimize),
                "max" => Some(Direction::Maximize),
                "auto" => None,
                _ => return None,
            };
            Some(ObjectiveChoice { metric: name.to_string(), direction }).filter(|o| !o.metric.is_empty())
        })
        .collect()
}

/// A list field: percent-decoded once, then split at the commas that no backslash escapes.
fn split_list(raw: &str) -> Option<Vec<String>> {
    let text = decode_component(raw)?;
    if text.is_empty() {
        return Some(Vec::new());
    }
    let (mut items, mut item, mut chars) = (Vec::new(), String::new(), text.chars());
    while let Some(c) = chars.next() {
        match c {
            '\\' => item.push(chars.next().unwrap_or('\\')),
            ',' => items.push(std::mem::take(&mut item)),
            c => item.push(c),
        }
    }
    items.push(item);
    Some(items)
}

/// A query without its leading `?`, decoded once when the whole of it went through
/// `encodeURIComponent` (then no `=` is left in it): what every link reader starts from.
pub fn plain_query(query: &str) -> String {
    let query = query.strip_prefix('?').unwrap_or(query);
    match decode_component(query) {
        Some(decoded) if !query.contains('=') && decoded.contains('=') => decoded,
        _ => query.to_string(),
    }
}

/// The query of a pasted link (or of a bare query), if it has one: what the landing page's
/// "open a shared link" field navigates to.
pub fn query_of(pasted: &str) -> Option<String> {
    let s = pasted.trim();
    let q = match s.split_once('?') {
        Some((_, q)) => q,
        None if s.contains('=') => s,
        None => return None,
    };
    let q = q.split('#').next().unwrap_or_default();
    (!q.is_empty()).then(|| q.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_without_a_version_reads_as_this_one_silently_and_another_version_is_named() {
        let parsed = from_query("design=TA.D.10.0");
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert_eq!(parsed.spec.design_view.map(|d| d.to_link()), Some("TA.D.10.0".to_string()));
        let parsed = from_query("logy=1&seeds=3");
        assert!(parsed.warnings.is_empty() && parsed.spec.log_y && to_query(&parsed.spec).contains("logy=1"));
        assert!(!from_query("logy=0").spec.log_y && from_query("logy=x").warnings.len() == 1);
        let parsed = from_query("v=2&seeds=3");
        assert!(parsed.warnings.len() == 1 && parsed.warnings[0].contains("version 1"), "{:?}", parsed.warnings);
        assert_eq!(parsed.spec.seeds, 3);
    }

    #[test]
    fn a_study_view_round_trips_with_its_study_and_parameters() {
        use crate::explore::link::{StudyView, StudyViewSpec};
        let spec = ExperimentSpec {
            explore: Some(StudyViewSpec {
                view: StudyView::Contour,
                study: "my, study".into(),
                params: vec!["lr".into(), "n,units".into()],
            }),
            ..ExperimentSpec::default()
        };
        let q = to_query(&spec);
        let parsed = from_query(&q);
        assert_eq!(parsed.warnings, Vec::<String>::new(), "{q}");
        assert_eq!(parsed.spec.explore, spec.explore);
        assert_eq!(from_query("explore=importance").spec.explore.map(|e| (e.view, e.study)), Some((StudyView::Importance, String::new())));
        for bad in ["explore=pie", "explore=slice,,a,b,c"] {
            let parsed = from_query(bad);
            assert!(parsed.spec.explore.is_none() && parsed.warnings.len() == 1, "{bad}: {:?}", parsed.warnings);
        }
    }

    #[test]
    fn round_trip_with_awkward_names() {
        let spec = ExperimentSpec {
            data: DataRef::Shared("XGBoost.csv.zip".into()),
            objective: Some("metric_error".into()),
            direction: Some(Direction::Minimize),
            tasks: vec!["heart".into(), "a,b & c/é".into()],
            methods: vec!["RS".into()],
            seeds: 20,
            first_seed: 7,
            iterations: 100,
            design_view: Some(DesignViewSpec { seed: 3, ..DesignViewSpec::default() }),
            regret: Some(RegretScale::Normalized),
            targets: RaceTargets::Copula,
            ..ExperimentSpec::default()
        };
        let q = to_query(&spec);
        assert!(q.ends_with("&design=TA.D.10.3&regret=norm&targets=copula"), "{q}");
        assert!(q.starts_with("v=1&data=shared:XGBoost.csv.zip&objective=metric_error"), "{q}");
        let parsed = from_query(&format!("?{q}"));
        assert_eq!(parsed.warnings, Vec::<String>::new());
        assert_eq!(parsed.spec, spec);
        assert_eq!(from_query("methods=GCP+prior,GP%2Bprior").spec.methods, ["GCP+prior", "GP+prior"]);
    }

    #[test]
    fn tampered_fields_fall_back_one_by_one() {
        let p = from_query(
            "v=1&data=shared:XGBoost.csv.zip&seeds=-3&iters=abc&evil=1&methods=RS&transfer=zz&tasks=%ZZ&design=IC.D.2.0&regret=log",
        );
        assert_eq!(p.spec.data, DataRef::Shared("XGBoost.csv.zip".into()));
        assert_eq!(p.spec.seeds, ExperimentSpec::default().seeds);
        assert_eq!(p.spec.iterations, ExperimentSpec::default().iterations);
        let all = p.warnings.join("\n");
        for field in ["'seeds'", "'iters'", "'evil'", "'transfer'", "'tasks'", "'design'", "'regret'"] {
            assert!(all.contains(field), "no message for {field}: {all}");
        }
        assert_eq!(p.warnings.len(), 7, "{all}");
        assert_eq!(p.spec.design_view, None);
    }

    #[test]
    fn column_roles_round_trip() {
        let spec = ExperimentSpec {
            data: "upload:runs.csv@0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef".parse().unwrap(),
            columns: Some(ColumnRoles {
                hyperparameters: vec!["lr".into(), "opt,imizer".into()],
                categorical: vec!["opt,imizer".into()],
                metrics: vec![
                    Metric { name: "acc:val".into(), direction: Direction::Maximize },
                    Metric { name: "time".into(), direction: Direction::Minimize },
                ],
                objective: "acc:val".into(),
                task: Some("dataset".into()),
                steps: vec!["loss_*".into(), "final".into()],
                run: Some("trial id".into()),
                step: Some("epoch".into()),
            }),
            missing: MissingPolicy::ForwardFill,
            log_scale: vec!["lr".into()],
            linear_scale: vec!["opt,imizer".into()],
            ..ExperimentSpec::default()
        };
        let q = to_query(&spec);
        assert!(
            q.contains("&hp=lr,opt%5C%2Cimizer&cat=opt%5C%2Cimizer&metrics=acc:val:max,time:min&taskcol=dataset&steps=loss_*,final"),
            "{q}"
        );
        assert!(q.contains("&missing=ffill&log=lr&lin=opt%5C%2Cimizer"), "{q}");
        assert!(q.contains("&runcol=trial%20id&stepcol=epoch"), "{q}");
        let parsed = from_query(&q);
        assert_eq!(parsed.warnings, Vec::<String>::new());
        assert_eq!(parsed.spec, spec);
        let broken = from_query("v=1&hp=a&metrics=b:sideways");
        assert_eq!(broken.spec.columns, None);
        assert_eq!(broken.warnings.len(), 2, "{:?}", broken.warnings);
    }

    #[test]
    fn objectives_round_trip_and_reject_garbage() {
        let spec = ExperimentSpec {
            objectives: vec![
                ObjectiveChoice { metric: "metric_error".into(), direction: Some(Direction::Minimize) },
                ObjectiveChoice { metric: "lat:ms".into(), direction: None },
            ],
            methods: vec!["GCP+prior+MO".into(), "EHVI".into()],
            ..ExperimentSpec::default()
        };
        let q = to_query(&spec);
        assert!(q.contains("&mo=metric_error:min,lat:ms:auto&"), "{q}");
        let parsed = from_query(&q);
        assert_eq!(parsed.warnings, Vec::<String>::new());
        assert_eq!(parsed.spec, spec);
        for bad in ["mo=metric_error:min", "mo=a:up,b:min", "mo=:min,b:max"] {
            let p = from_query(&format!("v=1&{bad}"));
            assert!(p.spec.objectives.is_empty() && p.warnings.len() == 1, "{bad}: {:?}", p.warnings);
        }
    }

    /// What JavaScript's `encodeURIComponent` writes: everything but A–Z a–z 0–9 - _ . ! ~ * ' ( )
    /// percent-encoded, as UTF-8 bytes.
    fn encode_uri_component(s: &str) -> String {
        s.bytes()
            .map(|b| if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
            .collect()
    }

    /// A link as the address bar gives it back after a person read it and typed it again:
    /// escapes shown as their characters (except those that would change the query's
    /// structure), then spaces, quotes, angle brackets and non-ASCII encoded by the browser.
    fn through_the_address_bar(q: &str) -> String {
        let shown: String = q
            .split('&')
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap();
                let mut out = Vec::new();
                let bytes = v.as_bytes();
                let mut i = 0;
                while i < bytes.len() {
                    let byte =
                        (bytes[i] == b'%').then(|| u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap(), 16).unwrap());
                    match byte {
                        Some(b) if !b"%&=#+".contains(&b) => {
                            out.push(b);
                            i += 3;
                        }
                        _ => {
                            out.push(bytes[i]);
                            i += 1;
                        }
                    }
                }
                format!("{k}={}", String::from_utf8(out).unwrap())
            })
            .collect::<Vec<_>>()
            .join("&");
        shown
            .bytes()
            .map(|b| if b <= b' ' || b >= 0x7f || b"\"<>`".contains(&b) { format!("%{b:02X}") } else { (b as char).to_string() })
            .collect()
    }

    #[test]
    fn any_spec_survives_the_ways_the_web_encodes_a_link() {
        use rand::{Rng, SeedableRng};
        let alphabet: Vec<char> = "aZ09 ,\\%&=#+:/*?'\"<>é漢-_.~".chars().collect();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let name = |rng: &mut rand_chacha::ChaCha8Rng| -> String {
            let n = rng.random_range(1..8);
            (0..n).map(|_| alphabet[rng.random_range(0..alphabet.len())]).collect()
        };
        for case in 0..300 {
            let names: Vec<String> = (0..rng.random_range(1..4)).map(|_| name(&mut rng)).collect();
            let spec = ExperimentSpec {
                data: DataRef::Shared("runs.csv".into()),
                objective: Some(name(&mut rng)),
                tasks: names.clone(),
                methods: vec!["ASHA".into(), "BOHB".into(), "GCP+prior".into()],
                columns: Some(ColumnRoles {
                    hyperparameters: names.clone(),
                    categorical: names[..1].to_vec(),
                    metrics: vec![Metric { name: name(&mut rng), direction: Direction::Maximize }],
                    objective: String::new(),
                    task: Some(name(&mut rng)),
                    steps: vec![name(&mut rng)],
                    run: Some(name(&mut rng)),
                    step: Some(name(&mut rng)),
                }),
                objectives: vec![
                    ObjectiveChoice { metric: name(&mut rng), direction: None },
                    ObjectiveChoice { metric: name(&mut rng), direction: Some(Direction::Minimize) },
                ],
                log_scale: names.clone(),
                ..ExperimentSpec::default()
            };
            let mut spec = spec;
            spec.columns.as_mut().unwrap().objective = spec.columns.as_ref().unwrap().metrics[0].name.clone();
            let q = to_query(&spec);
            let each_value: String = q
                .split('&')
                .map(|pair| {
                    let (k, v) = pair.split_once('=').unwrap();
                    format!("{k}={}", encode_uri_component(&decode_component(v).unwrap()))
                })
                .collect::<Vec<_>>()
                .join("&");
            for (how, link) in [
                ("as written", q.clone()),
                ("whole query encoded", encode_uri_component(&q)),
                ("each value encoded", each_value),
                ("through the address bar", through_the_address_bar(&q)),
            ] {
                let parsed = from_query(&link);
                assert_eq!(parsed.warnings, Vec::<String>::new(), "case {case}, {how}: {link}");
                assert_eq!(parsed.spec, spec, "case {case}, {how}: {link}");
            }
        }
        // The example: commas percent-encoded by a chat tool.
        assert_eq!(from_query("v=1&methods=ASHA%2CBOHB&race=100").spec.methods, ["ASHA", "BOHB"]);
    }

    #[test]
    fn pasted_links_give_their_query() {
        assert_eq!(query_of("https://x.org/app/?v=1&seeds=3#top").as_deref(), Some("v=1&seeds=3"));
        assert_eq!(query_of("  learn=gp-ei&step=2 ").as_deref(), Some("learn=gp-ei&step=2"));
        assert_eq!(query_of("https://x.org/app/"), None);
        assert_eq!(query_of("hello"), None);
    }
}
