// What the generator derives from a flavour of the vocabulary (./vocabulary.ts): codes of labels, the options of
// its SELECT attributes, and the checks that its words fit together.
import type { Flavour } from "./vocabulary";

// Lower-case, accent-free code of a label ("Bleu pétrole" → "bleu_petrole").
export function codeOf(label: string, sep = "_"): string {
  return label
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, sep)
    .replace(new RegExp(`^\\${sep}+|\\${sep}+$`, "g"), "");
}

// The options of a flavour's SELECT and MULTI_SELECT attributes, in their order, by attribute code: the colors and
// the materials (the codes products are given), then the flavour's other option lists.
export function optionsOf(f: Flavour): Record<string, { code: string; label: string }[]> {
  const lists: Record<string, string[]> = { color: f.colors, material: f.materials, ...f.options };
  return Object.fromEntries(
    Object.entries(lists).map(([code, labels]) => [
      code,
      labels.map((label) => ({ code: codeOf(label), label })),
    ]),
  );
}

// Throws when a flavour does not fit together: an option list without its attribute or with clashing codes, a noun
// of an unknown family, a family without nouns, an unknown extra attribute.
export function checkFlavour(f: Flavour): void {
  const families = new Set(f.families.map((x) => x.code));
  const attributes = new Set(f.attributes.map((a) => a.code));
  const options = optionsOf(f);
  const selects = new Set(
    f.attributes.filter((a) => a.type === "SELECT" || a.type === "MULTI_SELECT").map((a) => a.code),
  );
  for (const code of selects)
    if (!options[code]?.length) throw new Error(`vocabulary: attribute ${code} has no option`);
  for (const [code, list] of Object.entries(options)) {
    if (!selects.has(code)) throw new Error(`vocabulary: options of ${code}, not a SELECT or MULTI_SELECT`);
    const codes = new Set(list.map((o) => o.code));
    if (codes.size !== list.length || codes.has(""))
      throw new Error(`vocabulary: option codes of ${code} clash`);
  }
  const used = new Set<string>();
  for (const b of f.branches)
    for (const l of b.leaves)
      for (const n of l.nouns) {
        if (!families.has(n.family)) throw new Error(`vocabulary: unknown family ${n.family}`);
        used.add(n.family);
      }
  for (const fam of f.families) {
    if (!used.has(fam.code)) throw new Error(`vocabulary: family ${fam.code} has no product noun`);
    for (const c of fam.extra) if (!attributes.has(c)) throw new Error(`vocabulary: unknown attribute ${c}`);
  }
}
