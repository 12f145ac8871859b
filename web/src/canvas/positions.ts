// Where the nodes of a Canvas were, per Revision (the key, `${domain}@${revision}`): kept in
// memory and in sessionStorage, so going back to a Revision (or reloading the tab) shows the
// layout the reader already found their way around in.
export interface Point {
  x: number;
  y: number;
}

export type Positions = Map<string, Point>;

const memory = new Map<string, Positions>();
const STORAGE_PREFIX = "lorebase.canvas.positions:";

function load(key: string): Positions {
  try {
    const text = window.sessionStorage.getItem(STORAGE_PREFIX + key);
    if (!text) return new Map();
    const found = JSON.parse(text) as unknown;
    if (typeof found !== "object" || found === null) return new Map();
    const positions: Positions = new Map();
    for (const [ref, point] of Object.entries(found as Record<string, unknown>)) {
      const p = point as Partial<Point> | null;
      if (p && Number.isFinite(p.x) && Number.isFinite(p.y)) positions.set(ref, { x: p.x as number, y: p.y as number });
    }
    return positions;
  } catch {
    // Storage refused or held something else: start a fresh layout.
    return new Map();
  }
}

/** The positions kept for `key` (empty when none are). */
export function rememberedPositions(key: string): Positions {
  let found = memory.get(key);
  if (!found) {
    found = load(key);
    memory.set(key, found);
  }
  return found;
}

/** Keeps `positions` for `key`, adding to what was kept. */
export function rememberPositions(key: string, positions: Positions): void {
  const kept = rememberedPositions(key);
  for (const [ref, point] of positions) kept.set(ref, point);
  try {
    window.sessionStorage.setItem(STORAGE_PREFIX + key, JSON.stringify(Object.fromEntries(kept)));
  } catch {
    // A full storage only loses the layout after a reload; memory still has it.
  }
}
