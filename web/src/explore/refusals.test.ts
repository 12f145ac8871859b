// @vitest-environment node
import { describe, expect, it } from "vitest";

import { ApiProblem } from "../api/client";
import { explainGuideRefusal, retryAt, secondsLeft } from "./refusals";

const NOW = 1_000_000;

describe("the wait after a 429", () => {
  it("lasts Retry-After seconds, counted down to zero", () => {
    const until = retryAt(new ApiProblem(429, { code: "rate" }, 30), NOW);
    expect(until).toBe(NOW + 30_000);
    expect(secondsLeft(until, NOW)).toBe(30);
    expect(secondsLeft(until, NOW + 29_001)).toBe(1);
    expect(secondsLeft(until, NOW + 30_000)).toBe(0);
    expect(secondsLeft(until, NOW + 90_000)).toBe(0);
  });

  it("waits a few seconds when Retry-After is missing, and not at all for other refusals", () => {
    expect(secondsLeft(retryAt(new ApiProblem(429, { code: "busy" }), NOW), NOW)).toBeGreaterThan(0);
    expect(retryAt(new ApiProblem(403, { code: "origin_not_allowed" }), NOW)).toBeNull();
    expect(secondsLeft(null, NOW)).toBe(0);
  });

  it("says what each refusal means", () => {
    expect(explainGuideRefusal(new ApiProblem(429, { code: "concurrent" }, 5))).toMatch(/exploration already/);
    expect(explainGuideRefusal(new ApiProblem(403, { code: "origin_not_allowed" }))).toMatch(/origin/);
    expect(explainGuideRefusal(new ApiProblem(403, { code: "csrf" }))).toMatch(/CSRF/);
    expect(explainGuideRefusal(new ApiProblem(502, { code: "keeper_unavailable" }))).toMatch(/Keeper/);
  });
});
