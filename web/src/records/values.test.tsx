import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ValueText } from "./values";

describe("ValueText", () => {
  it("shows a payload as text, creating no element from it", () => {
    const payload = '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>';
    const { container } = render(<ValueText value={payload} />);
    expect(container.textContent).toBe(payload);
    expect(container.querySelector("img, script")).toBeNull();
  });

  it("marks a masked value and an absent one", () => {
    expect(render(<ValueText value="***" />).container.textContent).toBe("masked");
    expect(render(<ValueText value={null} />).container.textContent).toBe("—");
  });

  it("writes non-text values as JSON", () => {
    expect(render(<ValueText value={{ a: 1 }} />).container.textContent).toBe('{"a":1}');
  });
});
