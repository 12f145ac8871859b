// Colours of the Canvas. A Relation's colour is its place in the Domain's sorted list of
// Relations, so it stays the same as the graph grows and two Relations of a Domain differ while
// the palette lasts. Nodes are one neutral colour, so no node reads as a Relation of the legend. Paul Tol's "muted" scheme plus three Okabe-Ito colours:
// told apart with the common colour-vision deficiencies, and dark enough to read on white.
export const PALETTE: readonly string[] = [
  "#332288",
  "#117733",
  "#882255",
  "#0072B2",
  "#D55E00",
  "#44AA99",
  "#AA4499",
  "#999933",
  "#CC6677",
  "#E69F00",
  "#88CCEE",
  "#DDCC77",
];

export const NODE = "#4f5966";
export const SELECTED = "#0b57d0";

/** The colour of drawn but not emphasised things, when a highlight is on. */
export const DIMMED = "#d5dae0";

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** The colour of a Relation among the Domain's Relations (the legend shows the same). */
export function relationColor(relation: string, relations: readonly string[]): string {
  const sorted = [...new Set(relations)].sort();
  const at = sorted.indexOf(relation);
  // A Relation outside the list (one the schema at this point lacks) still gets a stable colour.
  const index = at >= 0 ? at : hash(relation);
  return PALETTE[index % PALETTE.length] as string;
}
