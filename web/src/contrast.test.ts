// @vitest-environment node
// The style sheet's text colours keep WCAG AA contrast (4.5:1) on the backgrounds they are used on.
import { describe, expect, it } from "vitest";

import css from "./styles.css?raw";

function variable(name: string): string {
  const found = new RegExp(`--${name}:\\s*(#[0-9a-fA-F]{6})`).exec(css);
  if (!found?.[1]) throw new Error(`--${name} is not a #rrggbb colour in styles.css`);
  return found[1];
}

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

// [text, background]: every pairing the style sheet makes.
const PAIRS: [string, string][] = [
  ["text", "bg"],
  ["text", "panel"],
  ["muted", "bg"],
  ["muted", "panel"],
  ["link", "bg"],
  ["link", "panel"],
  ["ok", "bg"],
  ["bad", "bg"],
  ["warn", "warn-bg"],
];

describe("colour contrast", () => {
  it.each(PAIRS)("--%s on --%s is at least 4.5:1", (text, background) => {
    expect(contrast(variable(text), variable(background))).toBeGreaterThanOrEqual(4.5);
  });

  it("white on the accent (the active navigation link, primary buttons) is at least 4.5:1", () => {
    expect(contrast("#ffffff", variable("accent"))).toBeGreaterThanOrEqual(4.5);
  });
});
