// @vitest-environment node
// Rendered to markup on the server renderer: the same escaping as the DOM renderer, and it runs
// where jsdom cannot start (jsdom 31's undici needs zlib zstd, which Node 20 lacks).
import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router-dom";
import { describe, expect, it } from "vitest";

import { Timeline } from "./Timeline";
import { step } from "./testSteps";

const PAYLOAD = "<img src=x onerror=alert(1)>";

describe("Timeline", () => {
  const steps = [
    step({ step: 1, tool: "get_record", cache: "hit" }),
    step({
      step: 2,
      type: "note",
      method: null,
      route: null,
      status: null,
      latency_ms: null,
      note: PAYLOAD,
      note_step: 1,
    }),
    step({
      step: 3,
      at: "2026-12-03T16:00:30.000Z",
      withheld: true,
      method: "POST",
      route: "/api/v1/domains/{domain}/proposals",
      proposal_id: "prop_1",
    }),
  ];

  function show(selected: number | null = null): string {
    return renderToStaticMarkup(
      <MemoryRouter>
        <Timeline steps={steps} domain="supply" selected={selected} onSelect={() => undefined} />
      </MemoryRouter>,
    );
  }

  it("shows a note's markup as text, never as HTML", () => {
    const html = show();
    expect(html).toContain('<p class="plain">&lt;img src=x onerror=alert(1)&gt;</p>');
    expect(html).not.toMatch(/<img/i);
  });

  it("shows gaps, withheld steps, cache hits and Proposal links", () => {
    const html = show();
    expect(html).toContain("30 s unaccounted");
    expect(html).toContain(">withheld</span>");
    expect(html).toContain("cache hit");
    expect(html).toContain('href="/supply/proposals/prop_1"');
  });

  it("makes each call a button that says whether it is selected", () => {
    expect(show(1)).toContain(
      '<button type="button" aria-pressed="true">get_record · GET /api/v1/domains/{domain}/kinds/{kind}/records/{key}</button>',
    );
    expect(show(null)).not.toContain('aria-pressed="true"');
  });
});
