// Record refs as the app links them. A ref becomes a link only when its Kind is a name of the
// Domain's schema and its key holds no control character (guide.md, "Untrusted text"); anything
// else is shown as text.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export interface Ref {
  kind: string;
  key: string;
}

export function parseRef(ref: string): Ref | null {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) return null;
  return { kind: ref.slice(0, slash), key: ref.slice(slash + 1) };
}

export function linkableRef(ref: string, kinds: ReadonlySet<string>): Ref | null {
  const found = parseRef(ref);
  if (found === null || !kinds.has(found.kind) || CONTROL.test(found.key)) return null;
  return found;
}

export function recordPath(domain: string, ref: Ref): string {
  return `/${encodeURIComponent(domain)}/kinds/${encodeURIComponent(ref.kind)}/${encodeURIComponent(ref.key)}`;
}
