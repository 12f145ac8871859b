import { describe, expect, it } from "vitest";

import { parseConfig } from "./config";

describe("the runtime configuration", () => {
  it("reads what Keeper serves", () => {
    expect(
      parseConfig({ keeperUrl: "", guideUrl: "http://127.0.0.1:8091/", authMode: "session", mock: false }),
    ).toEqual({
      keeperUrl: "",
      guideUrl: "http://127.0.0.1:8091",
      authMode: "session",
      apiKeys: true,
      oidc: false,
      mock: false,
    });
  });

  it("reads which sign-ins the auth mode takes", () => {
    expect(parseConfig({ authMode: "session", apiKeys: false, oidc: true })).toMatchObject({
      apiKeys: false,
      oidc: true,
    });
  });

  it("hides Explore without a guideUrl", () => {
    expect(parseConfig({ authMode: "token", guideUrl: null }).guideUrl).toBeNull();
  });

  it("refuses an unknown sign-in mode", () => {
    expect(() => parseConfig({ authMode: "cookie" })).toThrow(/authMode/);
    expect(() => parseConfig(null)).toThrow(/not an object/);
  });
});
