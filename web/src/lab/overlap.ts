// How two result lists of the lab overlap, by ref: which refs both hold, which only one.

export interface Overlap {
  both: ReadonlySet<string>;
  onlyA: string[];
  onlyB: string[];
}

export function overlap(a: readonly string[], b: readonly string[]): Overlap {
  const inA = new Set(a);
  const inB = new Set(b);
  return {
    both: new Set([...inA].filter((ref) => inB.has(ref))),
    onlyA: [...inA].filter((ref) => !inB.has(ref)),
    onlyB: [...inB].filter((ref) => !inA.has(ref)),
  };
}

export function overlapSummary(found: Overlap): string {
  return `${found.both.size} in both, ${found.onlyA.length} only in A, ${found.onlyB.length} only in B`;
}
