//! Seeing the plan: `describe()` (text) and `to_dot()` (Graphviz).

use std::fmt::Write;

use crate::Schedule;
use crate::plan::EdgeReason;

impl Schedule {
    /// The plan as text: systems grouped by batch, each numbered by its place in plan order
    /// ([`Schedule::order`]) with its stride and accesses, then every ordering edge and why it
    /// exists.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "schedule: {} systems, {} batches, {} thread(s)",
            self.descriptors.len(),
            self.plan.batches.len(),
            self.threads
        );
        for (b, batch) in self.plan.batches.iter().enumerate() {
            let _ = writeln!(out, "batch {b}:");
            for &i in batch {
                let position = self.plan.position[i] + 1;
                let d = &self.descriptors[i];
                let mut stride = if d.every_ticks == 1 {
                    "every tick".to_string()
                } else {
                    format!("every {} ticks", d.every_ticks)
                };
                if let Some(condition) = &self.conditions[i] {
                    let _ = write!(stride, "; if {condition}");
                }
                let names = |v: &[rota_core::system::DeclaredAccess]| {
                    v.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
                };
                let _ = write!(out, "  {position}. {} ({stride})", d.name);
                let mut parts = Vec::new();
                if !d.reads.is_empty() {
                    parts.push(format!("reads: {}", names(&d.reads)));
                }
                if !d.writes.is_empty() {
                    parts.push(format!("writes: {}", names(&d.writes)));
                }
                if !d.sends.is_empty() {
                    parts.push(format!("sends: {}", names(&d.sends)));
                }
                if !d.receives.is_empty() {
                    parts.push(format!("receives: {}", names(&d.receives)));
                }
                if d.uses_commands {
                    parts.push("commands".to_string());
                }
                if !parts.is_empty() {
                    let _ = write!(out, " {}", parts.join("; "));
                }
                out.push('\n');
            }
        }
        if !self.plan.edges.is_empty() {
            let _ = writeln!(out, "edges:");
            for (a, b, why) in &self.plan.edges {
                let why = match why {
                    EdgeReason::After => "after".to_string(),
                    EdgeReason::Conflict(t) => format!("conflict on {t}"),
                };
                let _ = writeln!(
                    out,
                    "  {} -> {} ({why})",
                    self.descriptors[*a].name, self.descriptors[*b].name
                );
            }
        }
        out
    }

    /// The plan as a Graphviz `digraph`: one cluster per batch, solid edges for `after`,
    /// dashed edges labelled with the conflicting type.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph schedule {\n  rankdir=LR;\n");
        for (b, batch) in self.plan.batches.iter().enumerate() {
            let _ = writeln!(out, "  subgraph cluster_{b} {{\n    label=\"batch {b}\";");
            for &i in batch {
                let d = &self.descriptors[i];
                let mut label = if d.every_ticks == 1 {
                    d.name.to_string()
                } else {
                    format!("{}\\nevery {} ticks", d.name, d.every_ticks)
                };
                if let Some(condition) = &self.conditions[i] {
                    let _ = write!(label, "\\nif {condition}");
                }
                let _ = writeln!(out, "    \"{}\" [label=\"{label}\"];", d.name);
            }
            out.push_str("  }\n");
        }
        for (a, b, why) in &self.plan.edges {
            let (a, b) = (self.descriptors[*a].name, self.descriptors[*b].name);
            match why {
                EdgeReason::After => {
                    let _ = writeln!(out, "  \"{a}\" -> \"{b}\";");
                }
                EdgeReason::Conflict(t) => {
                    let _ = writeln!(out, "  \"{a}\" -> \"{b}\" [style=dashed, label=\"{t}\"];");
                }
            }
        }
        out.push_str("}\n");
        out
    }
}
