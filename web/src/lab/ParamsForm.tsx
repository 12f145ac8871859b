// One parameter set of the lab (A or B), for a search or for a context pack.
import type { IncludeSchema, PackParams, SearchMode, SearchParams } from "./bodies";

function wholeNumber(text: string): number | null {
  const value = Number.parseInt(text, 10);
  return Number.isFinite(value) && value > 0 ? value : null;
}

function tristate(text: string): boolean | null {
  return text === "" ? null : text === "true";
}

export function SearchParamsForm(props: {
  side: string;
  value: SearchParams;
  onChange: (next: SearchParams) => void;
  modes: SearchMode[];
  kinds: string[];
  lenses: string[];
}) {
  const { value, onChange, side } = props;
  return (
    <fieldset className="filters">
      <legend>Parameters {side}</legend>
      <label>
        Mode
        <select value={value.mode} onChange={(e) => onChange({ ...value, mode: e.target.value as SearchMode })}>
          {props.modes.map((mode) => (
            <option key={mode}>{mode}</option>
          ))}
        </select>
      </label>
      <label>
        Limit
        <input
          type="number"
          min={1}
          value={value.limit ?? ""}
          onChange={(e) => onChange({ ...value, limit: wholeNumber(e.target.value) })}
        />
      </label>
      <label>
        Kinds
        <select
          multiple
          size={Math.min(5, Math.max(2, props.kinds.length))}
          value={value.kinds}
          onChange={(e) => onChange({ ...value, kinds: [...e.target.selectedOptions].map((o) => o.value) })}
        >
          {props.kinds.map((kind) => (
            <option key={kind}>{kind}</option>
          ))}
        </select>
      </label>
      <label>
        Lens
        <select value={value.lens} onChange={(e) => onChange({ ...value, lens: e.target.value })}>
          <option value="">(none)</option>
          {props.lenses.map((lens) => (
            <option key={lens}>{lens}</option>
          ))}
        </select>
      </label>
    </fieldset>
  );
}

export function PackParamsForm(props: { side: string; value: PackParams; onChange: (next: PackParams) => void }) {
  const { value, onChange, side } = props;
  const flag = (current: boolean | null) => (current === null ? "" : String(current));
  return (
    <fieldset className="filters">
      <legend>Parameters {side}</legend>
      <label>
        Budget (tokens)
        <input
          type="number"
          min={1}
          value={value.budgetTokens ?? ""}
          onChange={(e) => onChange({ ...value, budgetTokens: wholeNumber(e.target.value) })}
        />
      </label>
      <label>
        Depth
        <input
          type="number"
          min={0}
          value={value.depth ?? ""}
          onChange={(e) => {
            const depth = Number.parseInt(e.target.value, 10);
            onChange({ ...value, depth: Number.isFinite(depth) && depth >= 0 ? depth : null });
          }}
        />
      </label>
      <label>
        Schema section
        <select
          value={value.includeSchema}
          onChange={(e) => onChange({ ...value, includeSchema: e.target.value as IncludeSchema })}
        >
          <option value="true">full</option>
          <option value="compact">compact</option>
          <option value="false">none</option>
        </select>
      </label>
      <label>
        Recent changes
        <select
          value={flag(value.includeRecentChanges)}
          onChange={(e) => onChange({ ...value, includeRecentChanges: tristate(e.target.value) })}
        >
          <option value="">lens or default</option>
          <option value="true">include</option>
          <option value="false">leave out</option>
        </select>
      </label>
      <label>
        Lineage
        <select
          value={flag(value.includeLineage)}
          onChange={(e) => onChange({ ...value, includeLineage: tristate(e.target.value) })}
        >
          <option value="">lens or default</option>
          <option value="true">include</option>
          <option value="false">leave out</option>
        </select>
      </label>
    </fieldset>
  );
}
