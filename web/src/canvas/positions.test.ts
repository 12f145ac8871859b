// @vitest-environment node
// jsdom cannot start on Node 20 (its undici needs zlib zstd): a Map stands in for sessionStorage.
import { beforeEach, describe, expect, it, vi } from "vitest";

const stored = new Map<string, string>();
const sessionStorage = {
  getItem: (key: string) => stored.get(key) ?? null,
  setItem: (key: string, value: string) => void stored.set(key, value),
};

describe("positions", () => {
  beforeEach(() => {
    stored.clear();
    vi.stubGlobal("window", { sessionStorage });
    vi.resetModules();
  });

  it("keeps positions per key", async () => {
    const { rememberedPositions, rememberPositions } = await import("./positions");
    rememberPositions("supply@r1", new Map([["Part/P-1", { x: 1, y: 2 }]]));
    rememberPositions("supply@r2", new Map([["Part/P-1", { x: 5, y: 6 }]]));
    rememberPositions("supply@r1", new Map([["Part/P-2", { x: 3, y: 4 }]]));
    expect(rememberedPositions("supply@r1").get("Part/P-1")).toEqual({ x: 1, y: 2 });
    expect(rememberedPositions("supply@r1").get("Part/P-2")).toEqual({ x: 3, y: 4 });
    expect(rememberedPositions("supply@r2").get("Part/P-1")).toEqual({ x: 5, y: 6 });
    expect(rememberedPositions("supply@r3").size).toBe(0);
  });

  it("finds them again in sessionStorage after a reload", async () => {
    const first = await import("./positions");
    first.rememberPositions("supply@r1", new Map([["Part/P-1", { x: 1, y: 2 }]]));
    vi.resetModules();
    const reloaded = await import("./positions");
    expect(reloaded.rememberedPositions("supply@r1").get("Part/P-1")).toEqual({ x: 1, y: 2 });
  });

  it("ignores what it cannot read", async () => {
    sessionStorage.setItem("lorebase.canvas.positions:supply@bad", "{not json");
    sessionStorage.setItem("lorebase.canvas.positions:supply@odd", JSON.stringify({ "A/1": { x: "no" } }));
    const { rememberedPositions } = await import("./positions");
    expect(rememberedPositions("supply@bad").size).toBe(0);
    expect(rememberedPositions("supply@odd").size).toBe(0);
  });
});
