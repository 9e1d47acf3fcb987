//! `-nvregalloc-dot=DIR`: one Graphviz file per function (written at the FFI
//! boundary) with the interference graph the color pass used. Nodes are filled with the color
//! (PTX register) they were given, interference is a solid edge and a copy a
//! dashed one. A graph too large to read is summarised per register class.

use std::fmt::Write as _;

use crate::coloring::Coloring;
use crate::function::{Function, VReg};
use crate::interference::InterferenceGraph;

/// Above this many nodes a graph is summarised.
pub const MAX_NODES: usize = 300;
/// Graphviz's set312 color scheme has 12 colors; more registers reuse them.
const PALETTE: u32 = 12;

pub fn render(
    f: &Function,
    graph: &InterferenceGraph,
    coloring: &Coloring,
    copies: &[(VReg, VReg)],
) -> String {
    let nodes: Vec<VReg> =
        (0..f.num_vregs()).map(VReg::new).filter(|v| coloring.color[v.index()].is_some()).collect();
    let mut out = String::new();
    let _ = writeln!(out, "graph \"{}\" {{", f.name);
    let _ = writeln!(out, "  label=\"{}: interference (solid), copies (dashed)\";", f.name);
    if nodes.len() > MAX_NODES {
        summarise(&mut out, f, graph, coloring, &nodes);
    } else {
        let _ = writeln!(out, "  node [style=filled, colorscheme=set312, fontname=monospace];");
        for &v in &nodes {
            let class = f.class_of(v).map_or("?", |c| f.class_name(c));
            let color = coloring.color[v.index()].expect("colored");
            let _ = writeln!(
                out,
                "  v{} [label=\"%{}\\n{class} r{color}\", fillcolor={}];",
                v.0,
                v.0,
                color % PALETTE + 1
            );
        }
        for &v in &nodes {
            for w in graph.neighbors(v).filter(|&w| v < w) {
                let _ = writeln!(out, "  v{} -- v{};", v.0, w.0);
            }
        }
        for &(d, s) in copies {
            if coloring.color[d.index()].is_some() && coloring.color[s.index()].is_some() {
                let _ = writeln!(out, "  v{} -- v{} [style=dashed];", s.0, d.0);
            }
        }
    }
    out.push_str("}\n");
    out
}

fn summarise(out: &mut String, f: &Function, graph: &InterferenceGraph, coloring: &Coloring, nodes: &[VReg]) {
    let _ = writeln!(out, "  node [shape=box, fontname=monospace];");
    for (index, class) in f.class_names.iter().enumerate() {
        let members: Vec<&VReg> =
            nodes.iter().filter(|v| f.class_of(**v).is_some_and(|c| c.index() == index)).collect();
        if members.is_empty() {
            continue;
        }
        let edges: usize = members.iter().map(|v| graph.degree(**v)).sum::<usize>() / 2;
        let colors = members.iter().filter_map(|v| coloring.color[v.index()]).max().map_or(0, |c| c + 1);
        let _ = writeln!(
            out,
            "  {class} [label=\"{class}: {} vregs, {edges} interference edges, {colors} registers\\n(summarised: more than {MAX_NODES} nodes)\"];",
            members.len()
        );
    }
}
